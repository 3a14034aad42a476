import type { Queryable } from './queryable.js';

/** Wallets are stored and compared lower-case. */
export const walletKey = (wallet: string): string => wallet.toLowerCase();

export interface ChallengeRow {
  id: string;
  wallet: string;
  expires_at: number;
  used_at: number | null;
}

/** SQL for wallet proofs, linked wallets (accounts.wallet) and payout accounts (migration 030). */
export const walletsStore = {
  async accountIdByWallet(q: Queryable, wallet: string): Promise<string | undefined> {
    const row = await q.get<{ id: string }>('SELECT id FROM accounts WHERE wallet = ? AND deleted_at IS NULL', [
      walletKey(wallet),
    ]);
    return row?.id;
  },

  /** Links only when the account has no wallet yet; returns whether it did. A unique index refuses a wallet in use. */
  async link(q: Queryable, accountId: string, wallet: string): Promise<boolean> {
    const r = await q.run('UPDATE accounts SET wallet = ? WHERE id = ? AND wallet IS NULL', [
      walletKey(wallet),
      accountId,
    ]);
    return r.changes > 0;
  },

  async insertChallenge(q: Queryable, row: Omit<ChallengeRow, 'used_at'>): Promise<void> {
    await q.run('INSERT INTO wallet_challenges (id, wallet, expires_at) VALUES (?, ?, ?)', [
      row.id,
      walletKey(row.wallet),
      row.expires_at,
    ]);
  },

  /** The wallet's newest unused challenge, else its newest used one. */
  latestChallenge(q: Queryable, wallet: string): Promise<ChallengeRow | undefined> {
    return q.get<ChallengeRow>(
      `SELECT * FROM wallet_challenges WHERE wallet = ?
       ORDER BY CASE WHEN used_at IS NULL THEN 0 ELSE 1 END, expires_at DESC, id LIMIT 1`,
      [walletKey(wallet)],
    );
  },

  /** The wallet's unused challenges not expired at `now`, newest first, at most `limit`. */
  openChallenges(q: Queryable, wallet: string, now: number, limit: number): Promise<ChallengeRow[]> {
    return q.all<ChallengeRow>(
      `SELECT * FROM wallet_challenges WHERE wallet = ? AND used_at IS NULL AND expires_at >= ?
       ORDER BY expires_at DESC, id LIMIT ?`,
      [walletKey(wallet), now, limit],
    );
  },

  /** The wallet's challenge with this id (what the signature signs), if it is that wallet's. */
  challengeOf(q: Queryable, wallet: string, id: string): Promise<ChallengeRow | undefined> {
    return q.get<ChallengeRow>('SELECT * FROM wallet_challenges WHERE id = ? AND wallet = ?', [id, walletKey(wallet)]);
  },

  /** Marks the challenge used unless it already was; returns whether this call used it. */
  async useChallenge(q: Queryable, id: string, now: number): Promise<boolean> {
    const r = await q.run('UPDATE wallet_challenges SET used_at = ? WHERE id = ? AND used_at IS NULL', [now, id]);
    return r.changes > 0;
  },

  async deleteExpiredChallenges(q: Queryable, before: number): Promise<void> {
    await q.run('DELETE FROM wallet_challenges WHERE expires_at < ?', [before]);
  },

  /** Records a proof of control; one made for an account (migration 320) binds it, and one without keeps the binding. */
  async markVerified(q: Queryable, wallet: string, now: number, accountId: string | null): Promise<void> {
    await q.run(
      `INSERT INTO wallet_verifications (wallet, verified_at, account_id) VALUES (?, ?, ?)
       ON CONFLICT (wallet) DO UPDATE SET verified_at = excluded.verified_at,
         account_id = COALESCE(excluded.account_id, wallet_verifications.account_id)`,
      [walletKey(wallet), now, accountId],
    );
  },

  /** The account the wallet's owner last verified it for, if any. */
  async verifiedFor(q: Queryable, wallet: string): Promise<string | undefined> {
    const row = await q.get<{ account_id: string | null }>(
      'SELECT account_id FROM wallet_verifications WHERE wallet = ?',
      [walletKey(wallet)],
    );
    return row?.account_id ?? undefined;
  },

  /** When the wallet last proved control of itself (POST /wallet/verify), if ever. */
  async verifiedAt(q: Queryable, wallet: string): Promise<number | undefined> {
    const row = await q.get<{ verified_at: number }>('SELECT verified_at FROM wallet_verifications WHERE wallet = ?', [
      walletKey(wallet),
    ]);
    return row?.verified_at;
  },

  /**
   * Spends the withdrawal signature over {wallet, signedTimestamp}: returns false when it was spent before.
   * Also forgets spent signatures signed before `prunedBefore` (too old to pass the freshness check).
   */
  async claimWithdrawalProof(
    q: Queryable,
    wallet: string,
    signedTimestamp: number,
    now: number,
    prunedBefore: number,
  ): Promise<boolean> {
    await q.run('DELETE FROM withdrawal_proofs WHERE signed_timestamp < ?', [prunedBefore]);
    const r = await q.run(
      `INSERT INTO withdrawal_proofs (wallet, signed_timestamp, used_at) VALUES (?, ?, ?)
       ON CONFLICT (wallet, signed_timestamp) DO NOTHING`,
      [walletKey(wallet), signedTimestamp, now],
    );
    return r.changes > 0;
  },

  async payoutAccount(q: Queryable, accountId: string): Promise<string | undefined> {
    const row = await q.get<{ processor_account_id: string }>(
      'SELECT processor_account_id FROM payout_accounts WHERE account_id = ?',
      [accountId],
    );
    return row?.processor_account_id;
  },

  /** Links the payout account unless the account has one already; returns the one linked (the first wins). */
  async setPayoutAccount(q: Queryable, accountId: string, processorAccountId: string, now: number): Promise<string> {
    await q.run(
      `INSERT INTO payout_accounts (account_id, processor_account_id, created_at) VALUES (?, ?, ?)
       ON CONFLICT (account_id) DO NOTHING`,
      [accountId, processorAccountId, now],
    );
    return (await walletsStore.payoutAccount(q, accountId)) ?? processorAccountId;
  },
};
