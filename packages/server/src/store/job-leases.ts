import type { Queryable } from './queryable.js';

/** SQL for job_leases (migration 141): which instance runs a background job in an interval. */
export const jobLeasesStore = {
  /**
   * Claims `name` for `holder` unless someone claimed it less than `intervalMs` before `now`, in one
   * atomic upsert. True: the caller runs the job now. A claim more than an interval after `now` only a clock
   * far ahead can have made (another instance's, or this one's before it was corrected): it does not count.
   */
  async claim(q: Queryable, name: string, holder: string, now: number, intervalMs: number): Promise<boolean> {
    const row = await q.get<{ holder: string }>(
      `INSERT INTO job_leases (name, holder, ran_at, runs) VALUES (?, ?, ?, 1)
       ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, ran_at = excluded.ran_at, runs = job_leases.runs + 1
       WHERE job_leases.ran_at <= excluded.ran_at - ? OR job_leases.ran_at > excluded.ran_at + ?
       RETURNING holder`,
      [name, holder, now, intervalMs, intervalMs],
    );
    return row !== undefined;
  },

  byName(q: Queryable, name: string): Promise<{ holder: string; ran_at: number; runs: number } | undefined> {
    return q.get('SELECT holder, ran_at, runs FROM job_leases WHERE name = ?', [name]);
  },
};
