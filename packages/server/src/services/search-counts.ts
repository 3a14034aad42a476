import type { Logger } from '../logger.js';
import type { Database } from '../store/db.js';
import { queryCountersStore } from '../store/query-counters.js';

/** How long served searches may wait in memory before they are added to the table. */
const FLUSH_MS = 1000;

/**
 * Served-search counts, gathered in memory and added to query_counters in one transaction at most
 * every second (and at close). A write per search made every answer wait for the single writer
 * behind the others. `all` adds what is still in memory, so /stats is exact for this instance.
 */
export class SearchCounts {
  private pending = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  /** Reads and flushes run one at a time, so a read never misses a batch that is being written. */
  private turn: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly db: Database,
    private readonly logger: Logger,
  ) {}

  add(name: string): void {
    this.pending.set(name, (this.pending.get(name) ?? 0) + 1);
    this.schedule();
  }

  private schedule(): void {
    // After close the database is going away: no retry left behind to fail against it.
    if (this.closed) return;
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.flush().catch((err: Error) => this.logger.warn({ err: err.message }, 'search counts not saved yet; retrying'));
    }, FLUSH_MS).unref();
  }

  all(): Promise<Record<string, number>> {
    return this.inTurn(async () => {
      const stored = await queryCountersStore.all(this.db);
      for (const [name, n] of this.pending) stored[name] = (stored[name] ?? 0) + n;
      return stored;
    });
  }

  flush(): Promise<void> {
    return this.inTurn(() => this.write());
  }

  private inTurn<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.turn.then(fn, fn);
    this.turn = next.catch(() => undefined);
    return next;
  }

  private async write(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    try {
      await this.db.tx(async (q) => {
        for (const [name, n] of batch) await queryCountersStore.increment(q, name, n);
      });
    } catch (err) {
      // Kept for the next flush, with whatever arrived meanwhile.
      for (const [name, n] of batch) this.pending.set(name, (this.pending.get(name) ?? 0) + n);
      this.schedule();
      throw err;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush();
  }
}
