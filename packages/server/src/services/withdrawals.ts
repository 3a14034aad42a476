import { ERROR_CODES, LIMITS, microToUsd } from '@axle/sdk';
import type { Clock } from '../clock.js';
import { DomainError } from '../domain/errors.js';
import type { Logger } from '../logger.js';
import { type CardProcessor, ProcessorUnavailable } from '../payments/card-processor.js';
import type { SanctionsScreen } from '../payments/sanctions.js';
import type { Transactor } from '../store/queryable.js';
import { ledgerStore, type SettlementRow } from '../store/ledger.js';
import { walletKey, walletsStore } from '../store/wallets.js';
import { accountWriteBuckets } from './account-write-limits.js';
import { getAccount } from './accounts.js';
import { balanceOf, openSettlement, resolveSettlement } from './ledger.js';
import type { Payouts } from './payouts.js';
import type { RateLimiter } from './rate-limit.js';
import { hasAcceptedCurrentTerms, termsNotAccepted } from './terms.js';
import { PROOF_DOMAIN } from './wallets.js';

const ONBOARDING_LINKS_PER_HOUR = { limit: 10, windowMs: 3_600_000 };
/** A withdrawal signature covers a timestamp at most this far from now. */
export const SIGNATURE_FRESH_MS = 5 * 60_000;
/**
 * How long a used signature's record is kept: twice its window, so an instance whose clock runs ahead (by up to
 * the window) never prunes a use another instance still judges fresh.
 */
const PROOF_KEPT_MS = 2 * SIGNATURE_FRESH_MS;
const WITHDRAWAL_TYPES = {
  Withdrawal: [
    { name: 'wallet', type: 'address' },
    { name: 'timestamp', type: 'uint256' },
  ],
} as const;

/** The typed data a wallet signs to withdraw its pending balance. */
export const withdrawalProof = (wallet: string, timestamp: number) => ({
  domain: PROOF_DOMAIN,
  types: WITHDRAWAL_TYPES,
  primaryType: 'Withdrawal' as const,
  message: { wallet: wallet as `0x${string}`, timestamp: BigInt(timestamp) },
});

export type WithdrawOutcome =
  | { status: 'confirmed'; settlement_id: string; amount: number; tx_hash: string | null }
  | { status: 'processing_timeout'; settlement_id: string; tx_hash: null; poll_url: string };

export interface ProcessorPayout {
  payout_id: string | null;
  settlement_id: string;
  amount: number;
  status: SettlementRow['status'];
  poll_url?: string;
}

export interface WithdrawalsService {
  /** 503 withdraw_paused_noncustodial_migration unless custodial withdrawals are enabled. */
  assertOpen(): void;
  /** The EIP-712 typed data `wallet` signs to withdraw now (JSON: the timestamp as a number). */
  typedData(wallet: string): { typed_data: Record<string, unknown>; timestamp: number; valid_for_seconds: number };
  /** Each signed {wallet, timestamp} pays out at most once: a replay is 409 WITHDRAWAL_SIGNATURE_USED. */
  viaWallet(input: { wallet: string; signature: `0x${string}`; timestamp: number }): Promise<WithdrawOutcome>;
  /**
   * Card payout of `amountUsd` to the account's payout account; after the identity, active-account and terms
   * gates. Limited per account (LIMITS.accountWrites.cardWithdrawal; a retry answered from its Idempotency-Key is not
   * counted). An unknown outcome is `processing_timeout` (payout_id null): reconciliation settles it. A retry with
   * the same `requestKey` (the client's Idempotency-Key) answers the first request's settlement as it now stands.
   */
  viaProcessor(accountId: string, amountUsd: number, requestKey?: string): Promise<ProcessorPayout>;
  /** Creates (once) the account's payout account and returns its hosted onboarding link. */
  payoutOnboarding(
    accountId: string,
  ): Promise<{ url: string; payout_account_id: string; onboarding_complete: boolean }>;
  /** Sum of platform shares (GET /admin/settlements). */
  totalPlatformMicro(): Promise<number>;
}

export function createWithdrawalsService(deps: {
  db: Transactor;
  clock: Clock;
  logger: Logger;
  baseUrl(): string;
  termsUrl(): string;
  enabled: boolean;
  sanctions: SanctionsScreen;
  payouts: Payouts;
  processor?: CardProcessor;
  rateLimiter: RateLimiter;
  /** How long POST /withdraw waits for the transfer before answering 202 processing_timeout. */
  confirmTimeoutMs?: number;
}): WithdrawalsService {
  const { db, clock } = deps;
  const confirmTimeoutMs = deps.confirmTimeoutMs ?? 30_000;
  const pollUrl = (wallet: string) => `${deps.baseUrl()}/contributor/${walletKey(wallet)}/settlements`;

  function assertOpen(): void {
    if (!deps.enabled) {
      throw new DomainError(
        ERROR_CODES.WITHDRAW_PAUSED,
        'Withdrawals are paused during the non-custodial migration; earnings keep accruing',
      );
    }
  }

  /** How a card payout request is answered from its settlement (also to a retry with the same key). */
  function answer(s: SettlementRow, amountUsd: number): ProcessorPayout {
    if (Math.round(amountUsd * 100) * 10_000 !== s.amount_micro)
      throw new DomainError(ERROR_CODES.CONFLICT, 'This Idempotency-Key was used for another amount', {
        settlement_id: s.id,
      });
    if (s.status === 'failed')
      throw new DomainError(
        ERROR_CODES.PROVIDER_UNAVAILABLE,
        'the payout provider refused the payout; nothing was withdrawn',
        { settlement_id: s.id },
      );
    return {
      payout_id: s.payout_id,
      settlement_id: s.id,
      amount: microToUsd(s.amount_micro),
      status: s.status,
      ...(s.status !== 'confirmed' && { poll_url: `${deps.baseUrl()}/account/earnings` }),
    };
  }

  return {
    assertOpen,

    typedData(wallet) {
      assertOpen();
      const timestamp = clock.now();
      const typed = withdrawalProof(wallet, timestamp);
      return {
        typed_data: { ...typed, message: { ...typed.message, timestamp } },
        timestamp,
        valid_for_seconds: SIGNATURE_FRESH_MS / 1000,
      };
    },

    async viaWallet({ wallet, signature, timestamp }) {
      assertOpen();
      const fresh = (now: number) => Math.abs(now - timestamp) <= SIGNATURE_FRESH_MS;
      const stale = () =>
        new DomainError(ERROR_CODES.VALIDATION, 'timestamp is not within 5 minutes of now: sign a fresh one');
      if (!fresh(clock.now())) throw stale();
      let valid = false;
      try {
        const { verifyTypedData } = await import('viem');
        valid = await verifyTypedData({
          address: wallet as `0x${string}`,
          ...withdrawalProof(wallet, timestamp),
          signature,
        });
      } catch {
        valid = false;
      }
      if (!valid) throw new DomainError(ERROR_CODES.FORBIDDEN, 'The signature does not match the wallet');
      const accountId = await walletsStore.accountIdByWallet(db, wallet);
      const account = accountId ? await getAccount(db, accountId) : undefined;
      if (!account) throw new DomainError(ERROR_CODES.NOT_FOUND, 'No account has linked this wallet');
      if (account.suspended) throw new DomainError(ERROR_CODES.ACCOUNT_SUSPENDED, 'Account suspended');
      if (!(await hasAcceptedCurrentTerms(db, account.id))) throw termsNotAccepted(deps.termsUrl());
      await deps.sanctions.assertAllowed(wallet);
      const settlement = await db.tx(async (q) => {
        // The claim commits with the debit: a refused or failed debit leaves the signature unspent.
        const now = clock.now();
        // Fresh when claimed too, by the clock the claim prunes by: records are kept PROOF_KEPT_MS, so a signature
        // judged fresh here finds its first use however long the screen or the lock took since the check above.
        if (!fresh(now)) throw stale();
        if (!(await walletsStore.claimWithdrawalProof(q, wallet, timestamp, now, now - PROOF_KEPT_MS)))
          throw new DomainError(
            ERROR_CODES.WITHDRAWAL_SIGNATURE_USED,
            'This withdrawal signature was already used: sign a new timestamp',
          );
        const { pending_micro } = await balanceOf(q, account.id);
        return openSettlement(q, {
          holder: account.id,
          wallet,
          rail: 'wallet',
          amountMicro: pending_micro,
          pollUrl: pollUrl(wallet),
          now: clock.now(),
        });
      });
      const sent = deps.payouts.send(settlement);
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<'timeout'>(
        (resolve) => (timer = setTimeout(() => resolve('timeout'), confirmTimeoutMs)),
      );
      try {
        const first = await Promise.race([sent, timeout]);
        // A late confirmation is recorded by the send itself; an unknown outcome waits for reconciliation.
        if (first === 'timeout') {
          await db.tx((q) => resolveSettlement(q, settlement, { status: 'processing_timeout' }, clock.now()));
          sent.catch((err) => deps.logger.error({ err, settlement_id: settlement.id }, 'payout send failed'));
        }
        if (first === 'timeout' || first.status !== 'confirmed') {
          return {
            status: 'processing_timeout',
            settlement_id: settlement.id,
            tx_hash: null,
            poll_url: pollUrl(wallet),
          };
        }
        return {
          status: 'confirmed',
          settlement_id: settlement.id,
          amount: microToUsd(settlement.amount_micro),
          tx_hash: first.tx_hash,
        };
      } finally {
        clearTimeout(timer);
      }
    },

    async viaProcessor(accountId, amountUsd, requestKey) {
      assertOpen();
      const earlier = requestKey && (await ledgerStore.byRequestKey(db, accountId, requestKey));
      if (earlier) return answer(earlier, amountUsd);
      const cents = amountUsd * 100;
      if (!Number.isFinite(amountUsd) || amountUsd <= 0 || Math.abs(cents - Math.round(cents)) > 1e-6) {
        throw new DomainError(ERROR_CODES.VALIDATION, 'invalid amount: a positive number of whole cents');
      }
      if (amountUsd < LIMITS.cardWithdrawalMinUsd)
        throw new DomainError(
          ERROR_CODES.VALIDATION,
          `below minimum: at least $${LIMITS.cardWithdrawalMinUsd.toFixed(2)}`,
        );
      if (!deps.processor) throw new DomainError(ERROR_CODES.PROVIDER_NOT_CONFIGURED, 'payout provider not configured');
      const processor = deps.processor;
      const holder = await getAccount(db, accountId);
      if (!holder) throw new DomainError(ERROR_CODES.NOT_FOUND, 'Account not found');
      // The account's linked wallet is screened on this rail too: a wallet listed after it was linked is
      // blocked whichever rail its earnings leave by.
      if (holder.wallet) await deps.sanctions.assertAllowed(holder.wallet);
      const payoutAccountId = await walletsStore.payoutAccount(db, accountId);
      if (!payoutAccountId)
        throw new DomainError(ERROR_CODES.VALIDATION, 'no payout account linked: POST /account/payout-account');
      // Counted before the processor is asked, refused or not: each ask spends the platform's own API quota.
      await db.tx((q) => deps.rateLimiter.takeAll(accountWriteBuckets('cardWithdrawal', accountId), q));
      try {
        if (!(await processor.payoutsEnabled(payoutAccountId)))
          throw new DomainError(ERROR_CODES.VALIDATION, 'onboarding incomplete');
      } catch (err) {
        if (err instanceof ProcessorUnavailable)
          throw new DomainError(ERROR_CODES.PROVIDER_UNAVAILABLE, 'payout provider unavailable');
        throw err;
      }
      const account = (await getAccount(db, accountId))!;
      const opened = await db.tx(async (q) => {
        // Two retries racing: the second finds the first's settlement (same key) instead of opening another.
        const raced = requestKey && (await ledgerStore.byRequestKey(q, accountId, requestKey));
        if (raced) return { settlement: raced, fresh: false };
        const settlement = await openSettlement(q, {
          holder: accountId,
          wallet: account.wallet,
          rail: 'processor',
          amountMicro: Math.round(cents) * 10_000,
          destination: payoutAccountId,
          requestKey: requestKey ?? null,
          pollUrl: `${deps.baseUrl()}/account/earnings`,
          now: clock.now(),
        });
        return { settlement, fresh: true };
      });
      if (!opened.fresh) return answer(opened.settlement, amountUsd);
      return answer(await deps.payouts.send(opened.settlement), amountUsd);
    },

    async payoutOnboarding(accountId) {
      if (!deps.processor) throw new DomainError(ERROR_CODES.PROVIDER_NOT_CONFIGURED, 'payout provider not configured');
      await db.tx((q) => deps.rateLimiter.take(`payout-onboarding:account:${accountId}`, ONBOARDING_LINKS_PER_HOUR, q));
      const processor = deps.processor;
      const account = await getAccount(db, accountId);
      if (!account) throw new DomainError(ERROR_CODES.NOT_FOUND, 'Account not found');
      try {
        let id = await walletsStore.payoutAccount(db, accountId);
        if (!id) {
          // Two requests racing each create one at the processor: the first linked is the one both answer.
          const created = await processor.createPayoutAccount({ accountId, email: account.email });
          id = await walletsStore.setPayoutAccount(db, accountId, created, clock.now());
        }
        const back = `${deps.baseUrl()}/account/earnings`;
        const [url, complete] = await Promise.all([
          processor.onboardingLink(id, back, back),
          processor.payoutsEnabled(id),
        ]);
        return { url, payout_account_id: id, onboarding_complete: complete };
      } catch (err) {
        if (err instanceof ProcessorUnavailable)
          throw new DomainError(ERROR_CODES.PROVIDER_UNAVAILABLE, 'payout provider unavailable');
        throw err;
      }
    },

    totalPlatformMicro: () => ledgerStore.totalPlatform(db),
  };
}
