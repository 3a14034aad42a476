import type { Queryable } from './queryable.js';
import { DEBT_ROWS_SQL } from './credits.js';

/**
 * Consistency queries over the ledger (migration 030): each returns the rows that break one
 * invariant, so an empty result everywhere means the books balance.
 */
export const ledgerAuditStore = {
  unbalancedUnlocks: (q: Queryable) =>
    q.all(
      `SELECT id, gross_micro, contributor_micro, platform_micro FROM unlocks
       WHERE contributor_micro + platform_micro <> gross_micro`,
    ),

  /** Balance rows that differ from the sums of their journal entries. */
  balancesOffJournal: (q: Queryable) =>
    q.all(`
      WITH j AS (
        SELECT holder,
          SUM(CASE WHEN kind IN ('accrue', 'release') THEN amount_micro ELSE 0 END) AS owned,
          SUM(CASE kind WHEN 'hold' THEN amount_micro WHEN 'migrate_in' THEN amount_micro
                        WHEN 'release' THEN -amount_micro WHEN 'migrate_out' THEN -amount_micro ELSE 0 END) AS held,
          SUM(CASE kind WHEN 'accrue' THEN amount_micro WHEN 'release' THEN amount_micro WHEN 'refund' THEN amount_micro
                        WHEN 'withdraw' THEN -amount_micro ELSE 0 END) AS pending,
          SUM(CASE kind WHEN 'withdraw' THEN amount_micro WHEN 'refund' THEN -amount_micro ELSE 0 END) AS withdrawn,
          SUM(CASE kind WHEN 'withdraw' THEN 1 WHEN 'refund' THEN -1 ELSE 0 END) AS n
        FROM ledger_entries GROUP BY holder
      )
      SELECT b.holder, b.owned_micro, j.owned, b.held_micro, j.held, b.pending_micro, j.pending,
             b.withdrawn_micro, j.withdrawn
      FROM earnings_balances b LEFT JOIN j ON j.holder = b.holder
      WHERE b.owned_micro <> COALESCE(j.owned, 0) OR b.held_micro <> COALESCE(j.held, 0)
         OR b.pending_micro <> COALESCE(j.pending, 0)
         OR b.withdrawn_micro <> COALESCE(j.withdrawn, 0) OR b.withdrawal_count <> COALESCE(j.n, 0)
      UNION ALL
      SELECT j.holder, NULL, j.owned, NULL, j.held, NULL, j.pending, NULL, j.withdrawn
      FROM j LEFT JOIN earnings_balances b ON b.holder = j.holder WHERE b.holder IS NULL`),

  /**
   * Contributor shares credited (accrue or hold) from an x402 unlock whose payment is not settled: money
   * that may become withdrawable without a settled payment behind it.
   */
  creditsWithoutSettlement: (q: Queryable) =>
    q.all(`
      SELECT e.holder, e.amount_micro, u.id AS unlock_id, c.state AS payment_state
      FROM ledger_entries e JOIN unlocks u ON u.id = e.ref
      LEFT JOIN payment_claims c ON c.unlock_id = u.id
      WHERE e.kind IN ('accrue', 'hold') AND u.path = 'x402' AND COALESCE(c.state, 'missing') <> 'settled'`),

  /**
   * Buyers whose credit unlocks booked more than they paid for credits (shares nobody paid for): what they paid less
   * what refunds and disputes returned, plus the debts recorded for refunded money that spent credits had booked.
   */
  creditUnlocksAbovePurchases: (q: Queryable) =>
    q.all(`
      SELECT u.buyer AS account_id, SUM(u.gross_micro) AS booked_micro,
             COALESCE(MAX(p.paid), 0) AS paid_micro, COALESCE(MAX(d.owed), 0) AS owed_micro
      FROM unlocks u
      LEFT JOIN (SELECT account_id, SUM(amount_micro - reversed_cents * 10000) AS paid FROM purchases GROUP BY account_id) p
        ON p.account_id = u.buyer
      LEFT JOIN (SELECT account_id, SUM(amount_micro) AS owed FROM
                   (SELECT account_id, amount_micro FROM ${DEBT_ROWS_SQL} dr
                    UNION ALL SELECT account_id, -amount_micro FROM credit_debt_settlements) o GROUP BY account_id) d
        ON d.account_id = u.buyer
      WHERE u.path = 'key'
      GROUP BY u.buyer HAVING SUM(u.gross_micro) > COALESCE(MAX(p.paid), 0) + COALESCE(MAX(d.owed), 0)`),

  /** Settled x402 payments whose unlock's contributor share was never credited (a settlement lost its credit). */
  settledNotCredited: (q: Queryable) =>
    q.all(`
      SELECT u.id AS unlock_id, u.payee, u.contributor_micro FROM payment_claims c JOIN unlocks u ON u.id = c.unlock_id
      WHERE c.state = 'settled' AND u.payee IS NOT NULL AND u.contributor_micro > 0
        AND NOT EXISTS (SELECT 1 FROM ledger_entries e WHERE e.ref = u.id AND e.kind IN ('accrue', 'hold'))`),

  /** Every paid x402 unlock (a repeat books nothing) with what it booked and its payment's authorization (JSON). */
  x402Bookings: (q: Queryable) =>
    q.all<{ unlock_id: string; gross_micro: number; payload: string | null }>(`
      SELECT u.id AS unlock_id, u.gross_micro, c.payload FROM payment_claims c JOIN unlocks u ON u.id = c.unlock_id
      WHERE u.path = 'x402' AND u.accrual_capped = 0`),

  /** Totals that must be equal: contributor shares sold (x402 ones once settled) vs credited, wallet balances moved out vs in. */
  totals: (q: Queryable) =>
    q.get<{ sold: number; credited: number; moved_out: number; moved_in: number }>(`
      SELECT
        (SELECT COALESCE(SUM(contributor_micro), 0) FROM unlocks u WHERE u.path <> 'x402' OR EXISTS
          (SELECT 1 FROM payment_claims c WHERE c.unlock_id = u.id AND c.state = 'settled')) AS sold,
        (SELECT COALESCE(SUM(amount_micro), 0) FROM ledger_entries WHERE kind IN ('accrue', 'hold')) AS credited,
        (SELECT COALESCE(SUM(amount_micro), 0) FROM ledger_entries WHERE kind = 'migrate_out') AS moved_out,
        (SELECT COALESCE(SUM(amount_micro), 0) FROM ledger_entries WHERE kind = 'migrate_in') AS moved_in`),

  /** Holders whose withdrawn balance differs from their settlements that did not fail. */
  withdrawalsOffSettlements: (q: Queryable) =>
    q.all(`
      SELECT b.holder, b.withdrawn_micro, COALESCE(s.total, 0) AS settled
      FROM earnings_balances b
      LEFT JOIN (SELECT holder, SUM(amount_micro) AS total FROM settlements WHERE status <> 'failed' GROUP BY holder) s
        ON s.holder = b.holder
      WHERE b.withdrawn_micro <> COALESCE(s.total, 0)`),

  /** Learnings whose running totals differ from the unlocks that moved demand. */
  learningsOffUnlocks: (q: Queryable) =>
    q.all(`
      SELECT l.id, l.unlock_count, l.gross_micro, u.n, u.gross
      FROM learnings l
      LEFT JOIN (SELECT learning_id, COUNT(*) AS n, SUM(gross_micro) AS gross, SUM(contributor_micro) AS contributor
                 FROM unlocks WHERE path <> 'owner' AND self_dealing = 0 AND accrual_capped = 0 GROUP BY learning_id) u
        ON u.learning_id = l.id
      WHERE l.unlock_count <> COALESCE(u.n, 0) OR l.gross_micro <> COALESCE(u.gross, 0)
         OR l.contributor_micro <> COALESCE(u.contributor, 0)`),

  /**
   * Processor transfers the server has seen (migration 095) that do not match one confirmed processor-rail
   * settlement of the same amount whose payout is that transfer (a reversed transfer must belong to a failed one).
   */
  transfersOffSettlements: (q: Queryable) =>
    q.all(`
      SELECT t.transfer_id, t.settlement_id, t.amount_micro, t.reversed, s.status, s.rail, s.amount_micro AS settled,
             s.payout_id
      FROM processor_transfers t LEFT JOIN settlements s ON s.id = t.settlement_id
      WHERE s.id IS NULL OR s.rail <> 'processor'
         OR (t.reversed = 0 AND (s.status <> 'confirmed' OR s.amount_micro <> t.amount_micro
                                 OR COALESCE(s.payout_id, '') <> t.transfer_id))
         OR (t.reversed = 1 AND s.status = 'confirmed')`),

  /** Confirmed card payouts (since migration 095) with no transfer behind them, or with more than one. */
  settlementsOffTransfers: (q: Queryable) =>
    q.all(`
      SELECT s.id, s.amount_micro, s.payout_id, COUNT(t.transfer_id) AS transfers
      FROM settlements s LEFT JOIN processor_transfers t ON t.settlement_id = s.id AND t.reversed = 0
      WHERE s.rail = 'processor' AND s.status = 'confirmed' AND s.destination IS NOT NULL
      GROUP BY s.id HAVING COUNT(t.transfer_id) <> 1`),

  /** One settlement the processor lists, if any (for the processor's own list of transfers). */
  settlementOf: (q: Queryable, id: string) =>
    q.get<{ id: string; rail: string; status: string; amount_micro: number; payout_id: string | null }>(
      'SELECT id, rail, status, amount_micro, payout_id FROM settlements WHERE id = ?',
      [id],
    ),

  /**
   * Reversed purchases whose reversal was not fully applied: the credits in proportion to the money reversed
   * (rounded up) must all be taken back or owed: taken back plus the debts recorded (less what won disputes
   * cancelled) equals what was reversed.
   */
  hiddenDebts: (q: Queryable) =>
    q.all(`
      SELECT p.id, p.account_id, p.amount_micro, p.unlocks_added, p.reversed_cents, p.reversed_unlocks,
             p.revoked_unlocks, COALESCE(d.unlocks, 0) AS owed_unlocks
      FROM purchases p
      LEFT JOIN (SELECT purchase_id, SUM(unlocks) AS unlocks FROM ${DEBT_ROWS_SQL} dr GROUP BY purchase_id) d
        ON d.purchase_id = p.id
      WHERE p.reversed_unlocks <>
              (p.unlocks_added * p.reversed_cents * 10000 + p.amount_micro - 1) / p.amount_micro
         OR p.revoked_unlocks + COALESCE(d.unlocks, 0) <> p.reversed_unlocks`),

  /** Spent credits of reversed purchases still owed (less what later purchases paid): accounts, unlocks, value. */
  debts: (q: Queryable) =>
    q.get<{ accounts: number; unlocks: number; amount_micro: number }>(`
      SELECT COUNT(DISTINCT account_id) AS accounts, COALESCE(SUM(unlocks), 0) AS unlocks,
             COALESCE(SUM(amount_micro), 0) AS amount_micro
      FROM (SELECT d.account_id, SUM(d.unlocks) - COALESCE(MAX(s.unlocks), 0) AS unlocks,
                   SUM(d.amount_micro) - COALESCE(MAX(s.amount_micro), 0) AS amount_micro
            FROM ${DEBT_ROWS_SQL} d
            LEFT JOIN (SELECT account_id, SUM(unlocks) AS unlocks, SUM(amount_micro) AS amount_micro
                       FROM credit_debt_settlements GROUP BY account_id) s ON s.account_id = d.account_id
            GROUP BY d.account_id
            HAVING SUM(d.amount_micro) - COALESCE(MAX(s.amount_micro), 0) > 0
                OR SUM(d.unlocks) - COALESCE(MAX(s.unlocks), 0) > 0) o`),
};
