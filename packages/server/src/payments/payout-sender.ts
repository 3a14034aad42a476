/** Sends USDC to a wallet for a withdrawal (the wallet rail). */
export interface PayoutSender {
  /**
   * Resolves once the transfer is confirmed; txHash is null when nothing is broadcast. Idempotent by
   * settlementId: reconciliation calls it again for a settlement whose outcome is unknown, and a sender must
   * answer the first transfer's result rather than send another. A throw means the outcome is unknown.
   */
  send(input: { wallet: string; amountMicro: number; settlementId: string }): Promise<{ txHash: string | null }>;
}

/**
 * The self-hosted default: the withdrawal is recorded as a confirmed settlement in the ledger and
 * nothing is broadcast (tx_hash null); the operator pays it out of band.
 */
export const localPayoutSender: PayoutSender = {
  send: async () => ({ txHash: null }),
};
