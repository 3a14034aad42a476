import type { Queryable } from './queryable.js';

/** SQL for the magic_links table (migration 011). */
export const magicLinksStore = {
  async insert(
    q: Queryable,
    row: { tokenHash: string; email: string; nextPath: string | null; now: number; expiresAt: number },
  ) {
    await q.run(
      'INSERT INTO magic_links (token_hash, email, next_path, created_at, expires_at) VALUES (?, ?, ?, ?, ?)',
      [row.tokenHash, row.email, row.nextPath, row.now, row.expiresAt],
    );
  },

  /**
   * Marks the link used and returns it, in one statement, only if it is unused and unexpired:
   * of two concurrent verifications (even on two instances) exactly one gets the row.
   */
  consume(
    q: Queryable,
    tokenHash: string,
    now: number,
  ): Promise<{ email: string; next_path: string | null } | undefined> {
    return q.get(
      `UPDATE magic_links SET used_at = ?
       WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?
       RETURNING email, next_path`,
      [now, tokenHash, now],
    );
  },

  /** The link if it is still unused and unexpired, without using it. */
  find(q: Queryable, tokenHash: string, now: number): Promise<{ email: string; next_path: string | null } | undefined> {
    return q.get(
      'SELECT email, next_path FROM magic_links WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?',
      [tokenHash, now],
    );
  },

  /** Withdraws a link that was never delivered. */
  async delete(q: Queryable, tokenHash: string): Promise<void> {
    await q.run('DELETE FROM magic_links WHERE token_hash = ?', [tokenHash]);
  },

  /** Expired links are useless; dropped opportunistically so the table stays small. */
  async deleteExpired(q: Queryable, now: number): Promise<void> {
    await q.run('DELETE FROM magic_links WHERE expires_at <= ?', [now]);
  },
};
