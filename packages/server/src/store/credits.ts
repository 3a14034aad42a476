import type { RecordedReversal } from '../payments/card-processor.js';
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
  /** Migration 096. */
  payment_intent: string | null;
  reversed_cents: number;
  reversed_unlocks: number;
  reversed_queries: number;
  revoked_unlocks: number;
}

export interface CheckoutSessionRow {
  id: string;
  account_id: string;
  pack_id: string;
  amount_cents: number;
  currency: string;
  created_at: number;
}

export interface ProcessorEventRow {
  event_id: string;
  type: string;
  outcome: string;
  detail: string | null;
  purchase_id: string | null;
  received_at: number;
  /** Migration 210: a refund's or dispute's payment intent and the cents it reverses (cumulative). */
  payment_intent?: string | null;
  reversed_cents?: number | null;
  /** Migration 330: a dispute event's dispute id. */
  dispute_id?: string | null;
}

export interface CreditDebtRow {
  id: string;
  account_id: string;
  purchase_id: string;
  event_id: string;
  unlocks: number;
  queries: number;
  amount_micro: number;
  created_at: number;
}

/**
 * The debt a reversal made that a won dispute cancelled (migration 330), and what of it later purchases had paid that
 * the win freed (340: their withheld credits given back).
 */
export type CreditDebtCancellationRow = CreditDebtRow & { repaid_unlocks: number; repaid_micro: number };

/**
 * Every debt row, a cancellation as its negative (SQL): credit_debts only grows, so the debt owed is this sum less
 * what later purchases settled.
 */
export const DEBT_ROWS_SQL = `(SELECT account_id, purchase_id, unlocks, queries, amount_micro FROM credit_debts
  UNION ALL SELECT account_id, purchase_id, -unlocks, -queries, -amount_micro FROM credit_debt_cancellations)`;

export interface CreditDebtSettlementRow {
  id: string;
  account_id: string;
  purchase_id: string;
  /** Debt unlocks it settled. */
  unlocks: number;
  /** The new pack's credits its money would have bought, not granted. */
  withheld_unlocks: number;
  withheld_queries: number;
  amount_micro: number;
  created_at: number;
}

const insertRow = async (q: Queryable, table: string, row: object, conflict = '') => {
  const cols = Object.keys(row);
  return q.run(
    `INSERT INTO ${table} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')}) ${conflict}`,
    Object.values(row),
  );
};

const debtSum = async (q: Queryable, by: 'account_id' | 'purchase_id', id: string) => {
  const row = await q.get<{ unlocks: number | null; queries: number | null; amount_micro: number | null }>(
    `SELECT SUM(unlocks) AS unlocks, SUM(queries) AS queries, SUM(amount_micro) AS amount_micro
     FROM ${DEBT_ROWS_SQL} d WHERE ${by} = ?`,
    [id],
  );
  return {
    unlocks: Number(row?.unlocks ?? 0),
    queries: Number(row?.queries ?? 0),
    amount_micro: Number(row?.amount_micro ?? 0),
  };
};

/** SQL for credit_balances, purchases (migration 030), checkout sessions, processor events, debts (096). */
export const creditsStore = {
  async balance(q: Queryable, accountId: string): Promise<CreditRow> {
    return (
      (await q.get<CreditRow>('SELECT unlocks, queries FROM credit_balances WHERE account_id = ?', [accountId])) ?? {
        unlocks: 0,
        queries: 0,
      }
    );
  },

  /**
   * Takes one unlock credit if there is one and returns the money behind it (micro-USDC): the account's credit value
   * shared evenly over its credits, rounded down, so the last credit takes what is left. The UPDATE holds only if
   * the row is still as read, so concurrent takes never overdraw nor take the same money twice (a lost race reads
   * again). Undefined when no credit is left.
   */
  async takeUnlock(q: Queryable, accountId: string, now: number): Promise<number | undefined> {
    for (;;) {
      const row = await q.get<{ unlocks: number; value: number }>(
        'SELECT unlocks, unlock_value_micro AS value FROM credit_balances WHERE account_id = ?',
        [accountId],
      );
      if (!row || row.unlocks <= 0) return undefined;
      const value = Number(row.value);
      const taken = Math.floor(value / row.unlocks);
      const r = await q.run(
        `UPDATE credit_balances SET unlocks = unlocks - 1, unlock_value_micro = unlock_value_micro - ?, updated_at = ?
         WHERE account_id = ? AND unlocks = ? AND unlock_value_micro = ?`,
        [taken, now, accountId, row.unlocks, value],
      );
      if (r.changes > 0) return taken;
    }
  },

  /** Adds credits and `valueMicro`, the money paid for them. */
  async add(q: Queryable, accountId: string, unlocks: number, queries: number, valueMicro: number, now: number) {
    await q.run(
      `INSERT INTO credit_balances (account_id, unlocks, queries, unlock_value_micro, updated_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (account_id) DO UPDATE SET unlocks = credit_balances.unlocks + excluded.unlocks,
         queries = credit_balances.queries + excluded.queries,
         unlock_value_micro = credit_balances.unlock_value_micro + excluded.unlock_value_micro,
         updated_at = excluded.updated_at`,
      [accountId, unlocks, queries, valueMicro, now],
    );
  },

  /**
   * Takes up to the given credits (never below zero) and up to `want.valueMicro` of the money behind the unlock
   * credits; returns what it took. Money beyond that stays the buyer's even when no unlock credit is left (it backs
   * the next credits added): the credits a reversal takes, rounded up, may carry more than the money it returns.
   */
  async take(
    q: Queryable,
    accountId: string,
    want: { unlocks: number; queries: number; valueMicro: number },
    now: number,
  ): Promise<CreditRow & { valueMicro: number }> {
    const have = await q.get<CreditRow & { value: number }>(
      'SELECT unlocks, queries, unlock_value_micro AS value FROM credit_balances WHERE account_id = ?',
      [accountId],
    );
    if (!have) return { unlocks: 0, queries: 0, valueMicro: 0 };
    const took = { unlocks: Math.min(have.unlocks, want.unlocks), queries: Math.min(have.queries, want.queries) };
    const value = Number(have.value);
    const valueMicro = Math.min(value, Math.max(0, want.valueMicro));
    if (took.unlocks || took.queries || valueMicro)
      await q.run(
        `UPDATE credit_balances SET unlocks = unlocks - ?, queries = queries - ?, unlock_value_micro = unlock_value_micro - ?,
           updated_at = ? WHERE account_id = ?`,
        [took.unlocks, took.queries, valueMicro, now, accountId],
      );
    return { ...took, valueMicro };
  },

  /** Inserts unless the checkout session already produced a purchase; returns whether it inserted. */
  async insertPurchase(q: Queryable, row: PurchaseRow): Promise<boolean> {
    return (await insertRow(q, 'purchases', row, 'ON CONFLICT (checkout_session_id) DO NOTHING')).changes > 0;
  },

  purchaseByPaymentIntent(q: Queryable, paymentIntent: string): Promise<PurchaseRow | undefined> {
    return q.get<PurchaseRow>('SELECT * FROM purchases WHERE payment_intent = ?', [paymentIntent]);
  },

  async setReversed(
    q: Queryable,
    id: string,
    r: Pick<PurchaseRow, 'reversed_cents' | 'reversed_unlocks' | 'reversed_queries' | 'revoked_unlocks'>,
  ): Promise<void> {
    await q.run(
      `UPDATE purchases SET reversed_cents = ?, reversed_unlocks = ?, reversed_queries = ?, revoked_unlocks = ?
       WHERE id = ?`,
      [r.reversed_cents, r.reversed_unlocks, r.reversed_queries, r.revoked_unlocks, id],
    );
  },

  async insertSession(q: Queryable, row: CheckoutSessionRow): Promise<void> {
    await insertRow(q, 'checkout_sessions', row);
  },

  session(q: Queryable, id: string): Promise<CheckoutSessionRow | undefined> {
    return q.get<CheckoutSessionRow>('SELECT * FROM checkout_sessions WHERE id = ?', [id]);
  },

  /** Records an event the first time it arrives; returns false (and records nothing) for a replay. */
  async claimEvent(q: Queryable, row: ProcessorEventRow): Promise<boolean> {
    return (await insertRow(q, 'processor_events', row, 'ON CONFLICT (event_id) DO NOTHING')).changes > 0;
  },

  event(q: Queryable, eventId: string): Promise<ProcessorEventRow | undefined> {
    return q.get<ProcessorEventRow>('SELECT * FROM processor_events WHERE event_id = ?', [eventId]);
  },

  async settleEvent(q: Queryable, eventId: string, set: Pick<ProcessorEventRow, 'outcome' | 'detail' | 'purchase_id'>) {
    await q.run('UPDATE processor_events SET outcome = ?, detail = ?, purchase_id = ? WHERE event_id = ?', [
      set.outcome,
      set.detail,
      set.purchase_id,
      eventId,
    ]);
  },

  /** The recorded refunds, disputes and reinstatements of the payment intent. */
  reversalsOf(q: Queryable, paymentIntent: string): Promise<RecordedReversal[]> {
    return q.all<RecordedReversal>(
      'SELECT event_id, type, dispute_id, reversed_cents FROM processor_events WHERE payment_intent = ?',
      [paymentIntent],
    );
  },

  async insertDebt(q: Queryable, row: CreditDebtRow): Promise<void> {
    await insertRow(q, 'credit_debts', row);
  },

  async insertDebtCancellation(q: Queryable, row: CreditDebtCancellationRow): Promise<void> {
    await insertRow(q, 'credit_debt_cancellations', row);
  },

  /**
   * The debt the purchase's reversals made that no won dispute freed yet: less what they cancelled and what of it,
   * paid by later purchases, they gave back (not less settlements).
   */
  async debtOfPurchase(q: Queryable, purchaseId: string) {
    const made = await debtSum(q, 'purchase_id', purchaseId);
    const freed = await q.get<{ unlocks: number | null; amount_micro: number | null }>(
      `SELECT SUM(repaid_unlocks) AS unlocks, SUM(repaid_micro) AS amount_micro FROM credit_debt_cancellations
       WHERE purchase_id = ?`,
      [purchaseId],
    );
    return {
      unlocks: made.unlocks - Number(freed?.unlocks ?? 0),
      queries: made.queries,
      amount_micro: made.amount_micro - Number(freed?.amount_micro ?? 0),
    };
  },

  /**
   * The account's outstanding debt: spent credits of reversed purchases, less what won disputes cancelled and
   * what later purchases paid of it.
   */
  async debtOf(q: Queryable, accountId: string): Promise<{ unlocks: number; queries: number; amount_micro: number }> {
    const row = await debtSum(q, 'account_id', accountId);
    const paid = await this.debtSettled(q, accountId);
    return {
      unlocks: row.unlocks - paid.unlocks,
      queries: row.queries,
      amount_micro: row.amount_micro - paid.amount_micro,
    };
  },

  /** What later purchases paid of the account's debt, and the credits of theirs withheld for it. */
  async debtSettled(
    q: Queryable,
    accountId: string,
  ): Promise<{ unlocks: number; amount_micro: number; withheld_unlocks: number; withheld_queries: number }> {
    const row = await q.get<
      Record<'unlocks' | 'amount_micro' | 'withheld_unlocks' | 'withheld_queries', number | null>
    >(
      `SELECT SUM(unlocks) AS unlocks, SUM(amount_micro) AS amount_micro, SUM(withheld_unlocks) AS withheld_unlocks,
         SUM(withheld_queries) AS withheld_queries FROM credit_debt_settlements WHERE account_id = ?`,
      [accountId],
    );
    return {
      unlocks: Number(row?.unlocks ?? 0),
      amount_micro: Number(row?.amount_micro ?? 0),
      withheld_unlocks: Number(row?.withheld_unlocks ?? 0),
      withheld_queries: Number(row?.withheld_queries ?? 0),
    };
  },

  async insertSettlement(q: Queryable, row: CreditDebtSettlementRow): Promise<void> {
    await insertRow(q, 'credit_debt_settlements', row);
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
