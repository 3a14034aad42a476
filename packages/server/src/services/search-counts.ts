import type { Logger } from '../logger.js';
import type { Transactor } from '../store/queryable.js';
import { queryCountersStore } from '../store/query-counters.js';

/** How long served searches may wait in memory before they are added to the table. */
const FLUSH_MS = 1000;

/**
 * Served-search counts, gathered in memory and added to query_counters in one transaction at most
 * every second (and at close), so a search never waits for the single writer. `all` adds what is
 * still in memory, so /stats is exact for this instance.
 */
export interface SearchCounts {
  add(name: string): void;
  all(): Promise<Record<string, number>>;
  flush(): Promise<void>;
  close(): Promise<void>;
}

export function createSearchCounts({ db, logger }: { db: Transactor; logger: Logger }): SearchCounts {
  let pending = new Map<string, number>();
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  /** Reads and flushes run one at a time, so a read never misses a batch that is being written. */
  let turn: Promise<unknown> = Promise.resolve();

  function schedule(): void {
    // After close the database is going away: no retry left behind to fail against it.
    if (closed) return;
    timer ??= setTimeout(() => {
      timer = undefined;
      flush().catch((err: Error) => logger.warn({ err: err.message }, 'search counts not saved yet; retrying'));
    }, FLUSH_MS).unref();
  }

  function inTurn<T>(fn: () => Promise<T>): Promise<T> {
    const next = turn.then(fn, fn);
    turn = next.catch(() => undefined);
    return next;
  }

  async function write(): Promise<void> {
    if (pending.size === 0) return;
    const batch = pending;
    pending = new Map();
    try {
      await db.tx(async (q) => {
        for (const [name, n] of batch) await queryCountersStore.increment(q, name, n);
      });
    } catch (err) {
      // Kept for the next flush, with whatever arrived meanwhile.
      for (const [name, n] of batch) pending.set(name, (pending.get(name) ?? 0) + n);
      schedule();
      throw err;
    }
  }

  const flush = () => inTurn(write);

  return {
    add(name) {
      pending.set(name, (pending.get(name) ?? 0) + 1);
      schedule();
    },
    all: () =>
      inTurn(async () => {
        const stored = await queryCountersStore.all(db);
        for (const [name, n] of pending) stored[name] = (stored[name] ?? 0) + n;
        return stored;
      }),
    flush,
    async close() {
      closed = true;
      clearTimeout(timer);
      timer = undefined;
      await flush();
    },
  };
}
