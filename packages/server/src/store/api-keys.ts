import type { Queryable } from './queryable.js';

export interface ApiKeyRow {
  id: string;
  account_id: string;
  name: string;
  scopes: string;
  created_at: number;
  last_used_at: number | null;
}

/** What authentication needs about a presented key, joined with its account. */
export interface KeyLookup {
  id: string;
  account_id: string;
  scopes: string;
  last_used_at: number | null;
}

/** SQL for the api_keys table (migration 012). */
export const apiKeysStore = {
  async insert(q: Queryable, row: ApiKeyRow & { key_hash: string }): Promise<void> {
    await q.run('INSERT INTO api_keys (id, account_id, key_hash, name, scopes, created_at) VALUES (?, ?, ?, ?, ?, ?)', [
      row.id,
      row.account_id,
      row.key_hash,
      row.name,
      row.scopes,
      row.created_at,
    ]);
  },

  /** A live key of a live account, by the hash of the raw key. */
  byHash(q: Queryable, keyHash: string): Promise<KeyLookup | undefined> {
    return q.get<KeyLookup>(
      `SELECT k.id, k.account_id, k.scopes, k.last_used_at
       FROM api_keys k JOIN accounts a ON a.id = k.account_id
       WHERE k.key_hash = ? AND k.revoked_at IS NULL AND a.deleted_at IS NULL`,
      [keyHash],
    );
  },

  listActive(q: Queryable, accountId: string): Promise<ApiKeyRow[]> {
    return q.all<ApiKeyRow>(
      `SELECT id, account_id, name, scopes, created_at, last_used_at FROM api_keys
       WHERE account_id = ? AND revoked_at IS NULL ORDER BY created_at, id`,
      [accountId],
    );
  },

  /** One page of the account's live keys, oldest first, after the key `after` when given. */
  listActivePage(
    q: Queryable,
    accountId: string,
    limit: number,
    after?: { created_at: number; id: string },
  ): Promise<ApiKeyRow[]> {
    return q.all<ApiKeyRow>(
      `SELECT id, account_id, name, scopes, created_at, last_used_at FROM api_keys
       WHERE account_id = ? AND revoked_at IS NULL AND (created_at > ? OR (created_at = ? AND id > ?))
       ORDER BY created_at, id LIMIT ?`,
      [accountId, after?.created_at ?? -1, after?.created_at ?? -1, after?.id ?? '', limit],
    );
  },

  async countActive(q: Queryable, accountId: string): Promise<number> {
    const row = await q.get<{ n: number }>(
      'SELECT COUNT(*) AS n FROM api_keys WHERE account_id = ? AND revoked_at IS NULL',
      [accountId],
    );
    return row!.n;
  },

  /** Revokes the account's own live key; false when there is no such key. */
  async revoke(q: Queryable, accountId: string, id: string, now: number): Promise<boolean> {
    const r = await q.run('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND account_id = ? AND revoked_at IS NULL', [
      now,
      id,
      accountId,
    ]);
    return r.changes > 0;
  },

  /** Refreshes last_used_at only when it is older than `staleBefore`, so hot keys write at most once a window. */
  async touch(q: Queryable, id: string, now: number, staleBefore: number): Promise<void> {
    await q.run('UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)', [
      now,
      id,
      staleBefore,
    ]);
  },

  /** The name (label) of a key, or undefined. */
  async nameOf(q: Queryable, id: string): Promise<string | undefined> {
    return (await q.get<{ name: string }>('SELECT name FROM api_keys WHERE id = ?', [id]))?.name;
  },
};
