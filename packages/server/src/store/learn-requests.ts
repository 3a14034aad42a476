import type { Queryable } from './queryable.js';

/** A submission's answer kept under its Idempotency-Key. */
export interface LearnRequestRow {
  bodyHash: string;
  response: string;
  createdAt: number;
}

/** SQL for learn_requests (migration 400): POST /learn's answers by owner and Idempotency-Key. */
export const learnRequestsStore = {
  /** The answer kept for `owner` and `key` since `since`, if any. */
  async find(q: Queryable, owner: string, key: string, since: number): Promise<LearnRequestRow | undefined> {
    const row = await q.get<{ body_hash: string; response: string; created_at: number | string }>(
      `SELECT body_hash, response, created_at FROM learn_requests
         WHERE owner = ? AND request_key = ? AND created_at >= ?`,
      [owner, key, since],
    );
    return row && { bodyHash: row.body_hash, response: row.response, createdAt: Number(row.created_at) };
  },

  /** Keeps the answer under `owner` and `key`, in place of an older one past its day. */
  async save(q: Queryable, owner: string, key: string, row: LearnRequestRow): Promise<void> {
    await q.run(
      `INSERT INTO learn_requests (owner, request_key, body_hash, response, created_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (owner, request_key) DO UPDATE
         SET body_hash = excluded.body_hash, response = excluded.response, created_at = excluded.created_at`,
      [owner, key, row.bodyHash, row.response, row.createdAt],
    );
  },

  async deleteOlderThan(q: Queryable, before: number): Promise<void> {
    await q.run('DELETE FROM learn_requests WHERE created_at < ?', [before]);
  },
};
