import { randomBytes } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import { jobLeasesStore } from '../store/job-leases.js';
import type { Queryable, Transactor } from '../store/queryable.js';

export interface Job {
  name: string;
  intervalMs: number;
  /**
   * Runs in the transaction that claimed the interval, so a failed run leaves the interval unclaimed; with
   * `outside`, after that claim commits, on the pool, for work that waits on the network (a failed run then
   * waits for the next interval).
   */
  run(q: Queryable, now: number): Promise<unknown>;
  outside?: boolean;
}

export interface Jobs {
  /** Claims and runs every job whose interval has passed (timers call it; tests call it with a moved clock). */
  tick(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Background jobs that run once per interval across all instances on the database: each instance looks
 * every `pollMs` and runs a job only when it wins the job's lease for the interval (store/job-leases.ts).
 */
export function createJobs({
  db,
  clock,
  logger,
  jobs,
  pollMs,
}: {
  db: Transactor;
  clock: Clock;
  logger: Logger;
  jobs: readonly Job[];
  /** How often this instance looks; 0: never by itself (tick() only). */
  pollMs: number;
}): Jobs {
  const holder = `instance-${randomBytes(6).toString('hex')}`;
  // Per job, so a long run (a registry sync waiting on the network) holds up no other job's look.
  const running = new Map<string, Promise<void>>();
  const look = async (job: Job) => {
    try {
      const now = clock.now();
      const claim = (q: Queryable) => jobLeasesStore.claim(q, job.name, holder, now, job.intervalMs);
      if (!job.outside) await db.tx(async (q) => (await claim(q)) && (await job.run(q, now)));
      else if (await db.tx(claim)) await job.run(db, now);
    } catch (err) {
      logger.warn({ job: job.name, err: (err as Error).message }, 'background job failed');
    }
  };
  const tick = async () => {
    await Promise.all(
      jobs.map((job) => {
        let run = running.get(job.name);
        if (!run) {
          run = look(job).finally(() => running.delete(job.name));
          running.set(job.name, run);
        }
        return run;
      }),
    );
  };
  const timer = pollMs > 0 ? setInterval(() => void tick(), pollMs) : undefined;
  timer?.unref();
  return {
    tick,
    async close() {
      if (timer) clearInterval(timer);
      await Promise.all(running.values());
    },
  };
}
