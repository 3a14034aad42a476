import type { Queryable } from './queryable.js';

/**
 * Whether the window of `rate_limits` is open at `now` (taking the window length then `now`): it has not ended,
 * and it did not start more than a window ahead, which only a clock far ahead (another instance's, or this
 * one's before it was corrected) can have written; such a window would otherwise hold until its bogus end.
 */
const OPEN = '(rate_limits.window_start + ? > ? AND rate_limits.window_start - ? <= ?)';
const open = (windowMs: number, now: number) => [windowMs, now, windowMs, now];

/** SQL for the rate_limits table (migration 013): one fixed window per bucket. */
export const rateLimitsStore = {
  /**
   * Counts one hit on `bucket` in a single atomic upsert: a window opens at the first hit and
   * lasts `windowMs`; a hit after it ends opens a new window with count 1. Returns the state after the hit.
   */
  hit(q: Queryable, bucket: string, now: number, windowMs: number): Promise<{ count: number; window_start: number }> {
    return q
      .get<{ count: number; window_start: number }>(
        `INSERT INTO rate_limits (bucket, window_start, count) VALUES (?, ?, 1)
         ON CONFLICT (bucket) DO UPDATE SET
           count = CASE WHEN ${OPEN} THEN rate_limits.count + 1 ELSE 1 END,
           window_start = CASE WHEN ${OPEN} THEN rate_limits.window_start ELSE excluded.window_start END
         RETURNING count, window_start`,
        [bucket, now, ...open(windowMs, now), ...open(windowMs, now)],
      )
      .then((r) => r!);
  },

  /** Takes back one hit counted in the window of `bucket` that is open at `now`. */
  async unhit(q: Queryable, bucket: string, now: number, windowMs: number): Promise<void> {
    await q.run(`UPDATE rate_limits SET count = count - 1 WHERE bucket = ? AND count > 0 AND ${OPEN}`, [
      bucket,
      ...open(windowMs, now),
    ]);
  },

  /** Hits counted so far in the window of `bucket` that is open at `now` (0 when none is). */
  async count(q: Queryable, bucket: string, now: number, windowMs: number): Promise<number> {
    const row = await q.get<{ count: number }>(`SELECT count FROM rate_limits WHERE bucket = ? AND ${OPEN}`, [
      bucket,
      ...open(windowMs, now),
    ]);
    return row?.count ?? 0;
  },

  /** Deletes the windows of buckets whose key starts with `prefix` that opened before `before`. */
  async deleteExpired(q: Queryable, prefix: string, before: number): Promise<void> {
    await q.run('DELETE FROM rate_limits WHERE substr(bucket, 1, ?) = ? AND window_start < ?', [
      prefix.length,
      prefix,
      before,
    ]);
  },
};
