import type { Queryable } from './queryable.js';

export interface CreditRow {
  unlocks: number;
  queries: number;
}

export interface PurchaseRow {
  id: string;
  account_id: string;
  pack_id: string;
  amount_micro: number;
  queries_added: number;
  unlocks_added: number;
  checkout_session_id: string;
  created_at: number;
}

/** SQL for credit_balances and purchases (migration 030). */
export const creditsStore = {
  async balance(q: Queryable, accountId: string): Promise<CreditRow> {
    return (
      (await q.get<CreditRow>('SELECT unlocks, queries FROM credit_balances WHERE account_id = ?', [accountId])) ?? {
        unlocks: 0,
        queries: 0,
      }
    );
  },

  /** Takes one unlock credit if there is one; one statement, so concurrent calls never overdraw. */
  async takeUnlock(q: Queryable, accountId: string, now: number): Promise<boolean> {
    const r = await q.run(
      'UPDATE credit_balances SET unlocks = unlocks - 1, updated_at = ? WHERE account_id = ? AND unlocks > 0',
      [now, accountId],
    );
    return r.changes > 0;
  },

  async add(q: Queryable, accountId: string, unlocks: number, queries: number, now: number): Promise<void> {
    await q.run(
      `INSERT INTO credit_balances (account_id, unlocks, queries, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (account_id) DO UPDATE SET unlocks = credit_balances.unlocks + excluded.unlocks,
         queries = credit_balances.queries + excluded.queries, updated_at = excluded.updated_at`,
      [accountId, unlocks, queries, now],
    );
  },

  /** Inserts unless the checkout session already produced a purchase; returns whether it inserted. */
  async insertPurchase(q: Queryable, row: PurchaseRow): Promise<boolean> {
    const cols = Object.keys(row);
    const r = await q.run(
      `INSERT INTO purchases (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})
       ON CONFLICT (checkout_session_id) DO NOTHING`,
      Object.values(row),
    );
    return r.changes > 0;
  },

  purchaseBySession(q: Queryable, sessionId: string): Promise<PurchaseRow | undefined> {
    return q.get<PurchaseRow>('SELECT * FROM purchases WHERE checkout_session_id = ?', [sessionId]);
  },

  purchases(q: Queryable, accountId: string, limit: number): Promise<PurchaseRow[]> {
    return q.all<PurchaseRow>('SELECT * FROM purchases WHERE account_id = ? ORDER BY created_at DESC, id LIMIT ?', [
      accountId,
      limit,
    ]);
  },

  async totalSpent(q: Queryable, accountId: string): Promise<number> {
    const row = await q.get<{ s: number | null }>('SELECT SUM(amount_micro) AS s FROM purchases WHERE account_id = ?', [
      accountId,
    ]);
    return row?.s ?? 0;
  },
};
