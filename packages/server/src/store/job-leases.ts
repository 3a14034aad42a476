import type { Queryable } from './db.js';

/** SQL for job_leases (migration 095): a background pass runs on the one instance holding its lease. */
export const jobLeasesStore = {
  /**
   * Takes or renews the lease `name` for `holder` until `until` when it is free, expired or already
   * this holder's; one statement, so of two instances racing exactly one gets it.
   */
  async take(q: Queryable, name: string, holder: string, now: number, until: number): Promise<boolean> {
    const r = await q.run(
      `INSERT INTO job_leases (name, holder, expires_at) VALUES (?, ?, ?)
       ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
       WHERE job_leases.expires_at <= ? OR job_leases.holder = excluded.holder`,
      [name, holder, until, now],
    );
    return r.changes > 0;
  },

  async release(q: Queryable, name: string, holder: string): Promise<void> {
    await q.run('DELETE FROM job_leases WHERE name = ? AND holder = ?', [name, holder]);
  },
};
