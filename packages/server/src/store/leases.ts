import type { Queryable } from './queryable.js';

/**
 * SQL for `leases` (migration 131): work that one instance of several runs at a time (a payout
 * reconciliation pass, a registry sync) holds a named lease until it expires or is released.
 */
export const leasesStore = {
  /**
   * Takes or renews the lease `name` for `holder` until `until` when it is free, expired or already
   * this holder's; one statement, so of two instances racing exactly one gets it. A lease running more than
   * a lease's length past `until` only a clock far ahead can have taken (another instance's, or this one's
   * before it was corrected): it is taken as expired.
   */
  async take(q: Queryable, name: string, holder: string, now: number, until: number): Promise<boolean> {
    const r = await q.run(
      `INSERT INTO leases (name, holder, expires_at) VALUES (?, ?, ?)
       ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
       WHERE leases.expires_at <= ? OR leases.holder = excluded.holder OR leases.expires_at > ?`,
      [name, holder, until, now, until + (until - now)],
    );
    return r.changes > 0;
  },

  async release(q: Queryable, name: string, holder: string): Promise<void> {
    await q.run('DELETE FROM leases WHERE name = ? AND holder = ?', [name, holder]);
  },
};
