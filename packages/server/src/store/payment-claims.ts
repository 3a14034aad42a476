import type { Queryable } from './queryable.js';

/** SQL for payment_claims (migration 030): one row per x402 authorization ever used. */
export const paymentClaimsStore = {
  /** Claims (chain, payer, nonce); false when it was claimed before. The primary key makes this atomic. */
  async claim(
    q: Queryable,
    c: { chainId: number; payer: string; nonce: string; learningId: string; now: number },
  ): Promise<boolean> {
    const r = await q.run(
      `INSERT INTO payment_claims (chain_id, payer, nonce, learning_id, created_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (chain_id, payer, nonce) DO NOTHING`,
      [c.chainId, c.payer.toLowerCase(), c.nonce.toLowerCase(), c.learningId, c.now],
    );
    return r.changes > 0;
  },

  async attachUnlock(
    q: Queryable,
    c: { chainId: number; payer: string; nonce: string },
    unlockId: string,
  ): Promise<void> {
    await q.run('UPDATE payment_claims SET unlock_id = ? WHERE chain_id = ? AND payer = ? AND nonce = ?', [
      unlockId,
      c.chainId,
      c.payer.toLowerCase(),
      c.nonce.toLowerCase(),
    ]);
  },

  /** Gives back a claim whose settlement failed, so nothing was charged and the buyer may retry. */
  async release(q: Queryable, c: { chainId: number; payer: string; nonce: string }): Promise<void> {
    await q.run('DELETE FROM payment_claims WHERE chain_id = ? AND payer = ? AND nonce = ? AND unlock_id IS NULL', [
      c.chainId,
      c.payer.toLowerCase(),
      c.nonce.toLowerCase(),
    ]);
  },
};
