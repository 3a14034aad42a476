import { ERROR_CODES } from '@axle/sdk';
import type { Clock } from '../clock.js';
import { DomainError } from '../domain/errors.js';
import { newId } from '../domain/ids.js';
import type { SanctionsScreen } from '../payments/sanctions.js';
import type { Queryable, Transactor } from '../store/queryable.js';
import { type ChallengeRow, walletKey, walletsStore } from '../store/wallets.js';
import { accountWriteBuckets } from './account-write-limits.js';
import { getAccount } from './accounts.js';
import { migrateWalletBalance } from './ledger.js';
import type { RateLimiter } from './rate-limit.js';

/** How long a wallet challenge may be signed and verified. */
export const CHALLENGE_TTL_SECONDS = 300;
const CHALLENGES_PER_WALLET = { limit: 10, windowMs: 600_000 };
const CHALLENGES_PER_IP = { limit: 60, windowMs: 600_000 };
/** A proof naming no challenge is checked against this many of the wallet's open ones (one address's share). */
const OPEN_CHALLENGES_TRIED = CHALLENGES_PER_WALLET.limit;

/** The EIP-712 domain of this server's wallet proofs (wallet verification and withdrawal requests). */
export const PROOF_DOMAIN = { name: 'Axle', version: '1', chainId: 8453 } as const;
export const WALLET_PROOF_TYPES = {
  WalletProof: [
    { name: 'wallet', type: 'address' },
    { name: 'challenge', type: 'string' },
    { name: 'expires', type: 'uint256' },
  ],
} as const;

/** The typed data a wallet signs to prove control of itself for `challenge`. */
export const walletProof = (wallet: string, challenge: string, expiresAtMs: number) => ({
  domain: PROOF_DOMAIN,
  types: WALLET_PROOF_TYPES,
  primaryType: 'WalletProof' as const,
  message: { wallet: wallet as `0x${string}`, challenge, expires: BigInt(Math.floor(expiresAtMs / 1000)) },
});

export interface WalletsService {
  /** Limited per wallet and per client address (the rows are the database's to keep). */
  challenge(
    wallet: string,
    ip: string,
  ): Promise<{ challenge: string; expires_in_seconds: number; typed_data: Record<string, unknown> }>;
  /**
   * Checks the signature against the named challenge, else the wallet's open ones (newest first); a wrong one uses
   * none. With `accountId` (the request's credential) the proof is made for that account: only it may link the wallet.
   */
  verify(
    wallet: string,
    signature: `0x${string}`,
    accountId?: string,
    challengeId?: string,
  ): Promise<{ verified: true; wallet: string }>;
  /**
   * Call after the terms gate: verification, not in use, no wallet yet; then the per-account limit
   * (LIMITS.accountWrites.walletLink) and the sanctions screen; then migrates held earnings.
   */
  link(accountId: string, wallet: string): Promise<{ message: string; wallet: string; account_id: string }>;
}

const bad = (message: string) => new DomainError(ERROR_CODES.VALIDATION, message);
const alreadyHasOne = () => bad('This account already has a linked wallet');
const usedUp = () => bad('This challenge was already used: request a new one');

/** Throws the 400 that refuses linking `wallet` to the account (whose wallet, if known, is `linked`). */
async function linkable(q: Queryable, accountId: string, wallet: string, linked: string | null): Promise<void> {
  const holder = await walletsStore.accountIdByWallet(q, wallet);
  if (holder && holder !== accountId) throw bad('This wallet is linked to another account');
  if (holder === accountId) throw bad('This wallet is already linked to your account');
  // Verification is public: a proof sent without this account's credential would let any account take the wallet
  // (and the earnings held for it).
  if ((await walletsStore.verifiedFor(q, wallet)) !== accountId)
    throw bad(
      'This wallet is not verified for this account: POST /wallet/challenge, sign it, then POST /wallet/verify ' +
        "with this account's session token or API key",
    );
  if (linked) throw alreadyHasOne();
}

export function createWalletsService(deps: {
  db: Transactor;
  clock: Clock;
  rateLimiter: RateLimiter;
  sanctions: SanctionsScreen;
}): WalletsService {
  const { db, clock } = deps;
  return {
    async challenge(wallet, ip) {
      const now = clock.now();
      const row = { id: newId('wch'), wallet, expires_at: now + CHALLENGE_TTL_SECONDS * 1000 };
      await db.tx(async (q) => {
        await deps.rateLimiter.takeAll(
          [
            // Per wallet from one address: another address asking for the same wallet cannot use up its owner's.
            { key: `wallet-challenge:wallet:${walletKey(wallet)}:ip:${ip}`, ...CHALLENGES_PER_WALLET },
            { key: `wallet-challenge:ip:${ip}`, ...CHALLENGES_PER_IP },
          ],
          q,
        );
        await walletsStore.deleteExpiredChallenges(q, now - 86_400_000);
        await walletsStore.insertChallenge(q, row);
      });
      const typed = walletProof(wallet, row.id, row.expires_at);
      return {
        challenge: row.id,
        expires_in_seconds: CHALLENGE_TTL_SECONDS,
        typed_data: { ...typed, message: { ...typed.message, expires: Number(typed.message.expires) } },
      };
    },

    async verify(wallet, signature, accountId, challengeId) {
      return db.tx(async (q) => {
        const now = clock.now();
        const c =
          challengeId === undefined
            ? await walletsStore.latestChallenge(q, wallet)
            : await walletsStore.challengeOf(q, wallet, challengeId);
        if (!c) throw bad('No challenge for this wallet: request one with POST /wallet/challenge');
        if (c.used_at !== null) throw usedUp();
        if (c.expires_at < now) throw bad('This challenge has expired: request a new one');
        // Anyone may ask for challenges for any wallet: unnamed, the one signed may be older than a stranger's.
        const candidates =
          challengeId === undefined ? await walletsStore.openChallenges(q, wallet, now, OPEN_CHALLENGES_TRIED) : [c];
        const { verifyTypedData } = await import('viem');
        const signs = (x: ChallengeRow) =>
          verifyTypedData({
            address: wallet as `0x${string}`,
            ...walletProof(wallet, x.id, x.expires_at),
            signature,
          }).catch(() => false);
        let signed: ChallengeRow | undefined;
        for (const x of candidates) {
          if (await signs(x)) {
            signed = x;
            break;
          }
        }
        // Only a proof uses a challenge up: anyone may send a wrong signature for any wallet, and one that used it
        // would take its owner's.
        if (!signed) throw bad('The signature does not match the wallet and challenge');
        // Two requests racing with the same proof: one uses it.
        if (!(await walletsStore.useChallenge(q, signed.id, now))) throw usedUp();
        await walletsStore.markVerified(q, wallet, now, accountId ?? null);
        return { verified: true as const, wallet: walletKey(wallet) };
      });
    },

    async link(accountId, wallet) {
      const account = await getAccount(db, accountId);
      if (!account) throw new DomainError(ERROR_CODES.NOT_FOUND, 'Account not found');
      // A link refused on what the database says costs no quota and no screening; the limit is taken before the
      // outside call (the sanctions screen), in a transaction of its own, so a refused request rolls its hit back.
      await linkable(db, accountId, wallet, account.wallet);
      await db.tx((q) => deps.rateLimiter.takeAll(accountWriteBuckets('walletLink', accountId), q));
      await deps.sanctions.assertAllowed(wallet);
      return db.tx(async (q) => {
        await linkable(q, accountId, wallet, null);
        if (!(await walletsStore.link(q, accountId, wallet))) throw alreadyHasOne();
        await migrateWalletBalance(q, wallet, accountId, clock.now());
        return {
          message: 'Wallet linked; earnings attributed to it now accrue to this account',
          wallet: walletKey(wallet),
          account_id: accountId,
        };
      });
    },
  };
}
