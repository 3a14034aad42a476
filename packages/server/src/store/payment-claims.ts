import type { Queryable } from './queryable.js';

/**
 * Where a claimed x402 authorization stands (migration 090). `reverted` (migration 280): its settlement transaction
 * did not pay and was refused to its request, but the authorization is unused and still valid, so anyone may yet
 * submit it: open, reconciled like `submitted`, until it is used (settled) or expires (failed).
 */
export type PaymentState = 'verified' | 'submitted' | 'reverted' | 'settled' | 'failed';

export interface ClaimKey {
  chainId: number;
  payer: string;
  nonce: string;
}

export interface PaymentClaimRow {
  chain_id: number;
  payer: string;
  nonce: string;
  learning_id: string;
  unlock_id: string | null;
  state: PaymentState;
  tx_hash: string | null;
  reason: string | null;
  /** JSON {authorization, signature}. */
  payload: string | null;
  created_at: number;
  updated_at: number | null;
}

const key = (c: ClaimKey) => [c.chainId, c.payer.toLowerCase(), c.nonce.toLowerCase()];
const WHERE = 'chain_id = ? AND payer = ? AND nonce = ?';
/** States a claim may still move from: its outcome is not known yet. */
const OPEN = "('verified', 'submitted', 'reverted')";
/** The unlock `u`'s share has no journal entry crediting it. */
const NOT_CREDITED = "NOT EXISTS (SELECT 1 FROM ledger_entries e WHERE e.ref = u.id AND e.kind IN ('accrue', 'hold'))";

/** SQL for payment_claims (migrations 030, 090): one row per x402 authorization ever claimed, with its settlement. */
export const paymentClaimsStore = {
  /**
   * Claims (chain, payer, nonce) as `verified`; false when it is held by another request. A claim whose
   * settlement failed before any unlock was served may be claimed again (nothing moved; the buyer retries).
   * The primary key makes this atomic.
   */
  async claim(q: Queryable, c: ClaimKey & { learningId: string; payload: string; now: number }): Promise<boolean> {
    const r = await q.run(
      `INSERT INTO payment_claims (chain_id, payer, nonce, learning_id, state, payload, created_at, updated_at)
       VALUES (?, ?, ?, ?, 'verified', ?, ?, ?)
       ON CONFLICT (chain_id, payer, nonce) DO UPDATE SET learning_id = excluded.learning_id, state = 'verified',
         tx_hash = NULL, reason = NULL, payload = excluded.payload, updated_at = excluded.updated_at
       WHERE payment_claims.state = 'failed' AND payment_claims.unlock_id IS NULL`,
      [...key(c), c.learningId, c.payload, c.now, c.now],
    );
    return r.changes > 0;
  },

  get(q: Queryable, c: ClaimKey): Promise<PaymentClaimRow | undefined> {
    return q.get<PaymentClaimRow>(`SELECT * FROM payment_claims WHERE ${WHERE}`, key(c));
  },

  /** Ties the claim to the unlock it paid for; false when another request already did (the caller rolls back). */
  async attachUnlock(q: Queryable, c: ClaimKey, unlockId: string): Promise<boolean> {
    const r = await q.run(`UPDATE payment_claims SET unlock_id = ? WHERE ${WHERE} AND unlock_id IS NULL`, [
      unlockId,
      ...key(c),
    ]);
    return r.changes > 0;
  },

  /** Moves the claim to `state`; only from an open state (verified, submitted, reverted), so a final state stays final. */
  async setState(
    q: Queryable,
    c: ClaimKey,
    s: { state: PaymentState; txHash?: string | null; reason?: string | null; now: number },
  ): Promise<boolean> {
    const r = await q.run(
      `UPDATE payment_claims SET state = ?, tx_hash = COALESCE(?, tx_hash), reason = ?, updated_at = ?
       WHERE ${WHERE} AND state IN ${OPEN}`,
      [s.state, s.txHash ?? null, s.reason ?? null, s.now, ...key(c)],
    );
    return r.changes > 0;
  },

  /**
   * Another authorization by the payer for the learning that may settle or has settled but has bought no unlock
   * yet: a payment for the same purchase in flight, left by a request that died, or reverted while its authorization
   * (public, still valid) may be used by anyone. By the primary key's (chain, payer) prefix.
   */
  pendingFor(q: Queryable, c: ClaimKey & { learningId: string }): Promise<PaymentClaimRow | undefined> {
    return q.get<PaymentClaimRow>(
      `SELECT * FROM payment_claims WHERE chain_id = ? AND payer = ? AND nonce <> ? AND learning_id = ?
       AND state <> 'failed' AND unlock_id IS NULL ORDER BY created_at LIMIT 1`,
      [...key(c), c.learningId],
    );
  },

  /** Claims last moved no later than `before` and not yet known to have settled or failed, oldest first. */
  open(q: Queryable, before: number, limit: number): Promise<PaymentClaimRow[]> {
    return q.all<PaymentClaimRow>(
      `SELECT * FROM payment_claims WHERE state IN ${OPEN} AND updated_at <= ?
       ORDER BY created_at LIMIT ?`,
      [before, limit],
    );
  },

  /**
   * Contributor shares of the holder's unlocks whose payment is not settled (awaiting_settlement). Shares
   * credited before migration 090 are in the balances already (ledger:check reports them), not counted here.
   */
  async awaitingFor(q: Queryable, holder: string): Promise<number> {
    const row = await q.get<{ s: number | null }>(
      `SELECT SUM(u.contributor_micro) AS s FROM unlocks u JOIN payment_claims c ON c.unlock_id = u.id
       WHERE u.payee = ? AND c.state IN ('verified', 'submitted') AND ${NOT_CREDITED}`,
      [holder],
    );
    return row?.s ?? 0;
  },

  /** The same for the learnings a wallet contributed (GET /contributor/{wallet}). */
  async awaitingForWallet(q: Queryable, wallet: string): Promise<number> {
    const row = await q.get<{ s: number | null }>(
      `SELECT SUM(u.contributor_micro) AS s FROM learnings l JOIN unlocks u ON u.learning_id = l.id
       JOIN payment_claims c ON c.unlock_id = u.id
       WHERE lower(l.contributor_wallet) = ? AND c.state IN ('verified', 'submitted') AND ${NOT_CREDITED}`,
      [wallet.toLowerCase()],
    );
    return row?.s ?? 0;
  },
};
