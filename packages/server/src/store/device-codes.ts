import type { Queryable } from './queryable.js';

export type DeviceCodeStatus = 'pending' | 'approved' | 'denied' | 'delivered';

export interface DeviceCodeRow {
  device_code_hash: string;
  user_code: string;
  client_name: string;
  public_key: string;
  status: DeviceCodeStatus;
  interval_s: number;
  last_polled_at: number | null;
  created_at: number;
  expires_at: number;
  account_id: string | null;
  key_id: string | null;
  sealed_key: string | null;
  decided_at: number | null;
}

const COLUMNS =
  'device_code_hash, user_code, client_name, public_key, status, interval_s, last_polled_at, created_at, expires_at, account_id, key_id, sealed_key, decided_at';

/** SQL for device_codes (migration 018). Status changes are conditional on the expected prior status so races resolve in the database. */
export const deviceCodesStore = {
  async insert(
    q: Queryable,
    row: Pick<
      DeviceCodeRow,
      'device_code_hash' | 'user_code' | 'client_name' | 'public_key' | 'interval_s' | 'created_at' | 'expires_at'
    >,
  ): Promise<void> {
    await q.run(
      `INSERT INTO device_codes (device_code_hash, user_code, client_name, public_key, status, interval_s, created_at, expires_at)
       VALUES (?, ?, ?, ?, 'pending', ?, ?, ?)`,
      [
        row.device_code_hash,
        row.user_code,
        row.client_name,
        row.public_key,
        row.interval_s,
        row.created_at,
        row.expires_at,
      ],
    );
  },

  async userCodeTaken(q: Queryable, userCode: string): Promise<boolean> {
    return (await q.get('SELECT 1 FROM device_codes WHERE user_code = ?', [userCode])) !== undefined;
  },

  byHash(q: Queryable, hash: string): Promise<DeviceCodeRow | undefined> {
    return q.get<DeviceCodeRow>(`SELECT ${COLUMNS} FROM device_codes WHERE device_code_hash = ?`, [hash]);
  },

  /** A code a person can still act on: pending and not expired. */
  pendingByUserCode(q: Queryable, userCode: string, now: number): Promise<DeviceCodeRow | undefined> {
    return q.get<DeviceCodeRow>(
      `SELECT ${COLUMNS} FROM device_codes WHERE user_code = ? AND status = 'pending' AND expires_at > ?`,
      [userCode, now],
    );
  },

  async recordPoll(q: Queryable, hash: string, now: number, intervalS: number): Promise<void> {
    await q.run('UPDATE device_codes SET last_polled_at = ?, interval_s = ? WHERE device_code_hash = ?', [
      now,
      intervalS,
      hash,
    ]);
  },

  async approve(
    q: Queryable,
    hash: string,
    v: { accountId: string; keyId: string; sealedKey: string; now: number },
  ): Promise<boolean> {
    const r = await q.run(
      `UPDATE device_codes SET status = 'approved', account_id = ?, key_id = ?, sealed_key = ?, decided_at = ?
       WHERE device_code_hash = ? AND status = 'pending'`,
      [v.accountId, v.keyId, v.sealedKey, v.now, hash],
    );
    return r.changes === 1;
  },

  async deny(q: Queryable, hash: string, accountId: string, now: number): Promise<boolean> {
    const r = await q.run(
      `UPDATE device_codes SET status = 'denied', account_id = ?, decided_at = ? WHERE device_code_hash = ? AND status = 'pending'`,
      [accountId, now, hash],
    );
    return r.changes === 1;
  },

  /** Hands the sealed key out once: only the caller whose update flips approved -> delivered gets true. */
  async markDelivered(q: Queryable, hash: string): Promise<boolean> {
    const r = await q.run(
      `UPDATE device_codes SET status = 'delivered', sealed_key = NULL WHERE device_code_hash = ? AND status = 'approved'`,
      [hash],
    );
    return r.changes === 1;
  },

  /** Drops rows expired long enough ago that no client still polls them (frees their user codes). */
  async deleteExpired(q: Queryable, before: number): Promise<void> {
    await q.run('DELETE FROM device_codes WHERE expires_at < ?', [before]);
  },
};
