import type { Queryable } from './queryable.js';

export interface PaymentIdentifierRow {
  id: string;
  fingerprint: string;
  learning_id: string;
  payer: string;
  revenue: string | null;
  tx_hash: string | null;
  /** The nonce of the x402 authorization the id was reserved for (NULL on rows from before migration 230). */
  nonce: string | null;
  created_at: number;
  /** When the request that reserved it ended without knowing whether its payment settled; NULL while it runs. */
  abandoned_at: number | null;
}

/** SQL for the x402 extensions' tables (migration 121): payment identifiers, SIWX nonces, signing keys. */
export const x402ExtensionsStore = {
  async paymentIdentifier(q: Queryable, id: string): Promise<PaymentIdentifierRow | undefined> {
    return q.get<PaymentIdentifierRow>('SELECT * FROM payment_identifiers WHERE id = ?', [id]);
  },

  /** Reserves `id` for a payment in flight; false when the id is taken. The primary key makes this atomic. */
  async reservePaymentIdentifier(
    q: Queryable,
    r: { id: string; fingerprint: string; learningId: string; payer: string; nonce: string; now: number },
  ): Promise<boolean> {
    const res = await q.run(
      `INSERT INTO payment_identifiers (id, fingerprint, learning_id, payer, nonce, created_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO NOTHING`,
      [r.id, r.fingerprint, r.learningId, r.payer, r.nonce, r.now],
    );
    return res.changes > 0;
  },

  async completePaymentIdentifier(q: Queryable, id: string, revenue: string, txHash: string | null): Promise<void> {
    await q.run('UPDATE payment_identifiers SET revenue = ?, tx_hash = ? WHERE id = ?', [revenue, txHash, id]);
  },

  /** The request reserving `id` ends not knowing whether its payment settled: the next send under it resolves that. */
  async abandonPaymentIdentifier(q: Queryable, id: string, now: number): Promise<void> {
    await q.run('UPDATE payment_identifiers SET abandoned_at = ? WHERE id = ? AND revenue IS NULL', [now, id]);
  },

  /** Gives back an id whose payment was not booked (settlement refused or unreachable). */
  async releasePaymentIdentifier(q: Queryable, id: string): Promise<void> {
    await q.run('DELETE FROM payment_identifiers WHERE id = ? AND revenue IS NULL', [id]);
  },

  /**
   * The buyer (a payer's wallet key) paid for the learning through x402 at or after `since`; a payment that failed
   * to settle after it was served is no payment.
   */
  async paidSince(q: Queryable, buyer: string, learningId: string, since: number): Promise<boolean> {
    const row = await q.get(
      `SELECT 1 AS paid FROM unlocks u WHERE buyer = ? AND learning_id = ? AND path = 'x402' AND gross_micro > 0
       AND created_at >= ?
       AND NOT EXISTS (SELECT 1 FROM payment_claims c WHERE c.unlock_id = u.id AND c.state = 'failed') LIMIT 1`,
      [buyer, learningId, since],
    );
    return row !== undefined;
  },

  /** Claims a SIWX nonce; false when it was used before. Prunes those that expired before `prunedBefore`. */
  async claimSiwxNonce(
    q: Queryable,
    nonce: string,
    wallet: string,
    expiresAt: number,
    prunedBefore: number,
  ): Promise<boolean> {
    await q.run('DELETE FROM siwx_nonces WHERE expires_at < ?', [prunedBefore]);
    const res = await q.run(
      'INSERT INTO siwx_nonces (nonce, wallet, expires_at) VALUES (?, ?, ?) ON CONFLICT (nonce) DO NOTHING',
      [nonce, wallet, expiresAt],
    );
    return res.changes > 0;
  },

  async signingKey(q: Queryable, id: string): Promise<{ private_jwk: string; public_jwk: string } | undefined> {
    return q.get('SELECT private_jwk, public_jwk FROM signing_keys WHERE id = ?', [id]);
  },

  async insertSigningKey(q: Queryable, id: string, privateJwk: string, publicJwk: string, now: number): Promise<void> {
    await q.run(
      `INSERT INTO signing_keys (id, private_jwk, public_jwk, created_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (id) DO NOTHING`,
      [id, privateJwk, publicJwk, now],
    );
  },
};
