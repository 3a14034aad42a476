import type { Queryable } from './queryable.js';

export interface AccountRow {
  id: string;
  email: string;
  wallet: string | null;
  suspended: number;
  deleted_at: number | null;
  created_at: number;
}

const COLUMNS = 'id, email, wallet, suspended, deleted_at, created_at';

/** SQL for the accounts table (migration 010). */
export const accountsStore = {
  byId(q: Queryable, id: string): Promise<AccountRow | undefined> {
    return q.get<AccountRow>(`SELECT ${COLUMNS} FROM accounts WHERE id = ?`, [id]);
  },

  byEmail(q: Queryable, email: string): Promise<AccountRow | undefined> {
    return q.get<AccountRow>(`SELECT ${COLUMNS} FROM accounts WHERE email = ?`, [email]);
  },

  /** Inserts unless the email is taken; returns whichever row now holds the email. */
  async insertOrGet(q: Queryable, row: Pick<AccountRow, 'id' | 'email' | 'created_at'>): Promise<AccountRow> {
    await q.run('INSERT INTO accounts (id, email, created_at) VALUES (?, ?, ?) ON CONFLICT (email) DO NOTHING', [
      row.id,
      row.email,
      row.created_at,
    ]);
    return (await accountsStore.byEmail(q, row.email))!;
  },

  /** Returns whether a live (not deleted) account changed. */
  async setSuspended(q: Queryable, id: string, suspended: boolean): Promise<boolean> {
    const r = await q.run('UPDATE accounts SET suspended = ? WHERE id = ? AND deleted_at IS NULL', [
      suspended ? 1 : 0,
      id,
    ]);
    return r.changes > 0;
  },
};
