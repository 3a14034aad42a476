import { ERROR_CODES, LIMITS, type LearningFull, microToUsd } from '@axle/sdk';
import { encodePaymentResponseHeader } from '@x402/core/http';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import { DomainError } from '../domain/errors.js';
import { decodePayment, PaymentFormatError } from '../payments/x402-payload.js';
import {
  CHAIN_ID,
  MAX_TIMEOUT_SECONDS,
  NETWORK,
  type PaymentTerms,
  paymentRequiredHeader,
  requirementV1,
  requirementV2,
} from '../payments/x402-requirements.js';
import { PaymentRejected, verifyAuthorization } from '../payments/x402-verify.js';
import {
  expiryJudgedAt,
  SettlementFailed,
  type SettlementMode,
  type SettlementStatus,
  type Settler,
  SettlementUnavailable,
} from '../payments/settlement.js';
import type { Authorization } from '../payments/x402-payload.js';
import { paymentFingerprint, paymentIdentifierOf } from '../payments/payment-identifier.js';
import { receiptExtension } from '../payments/receipts.js';
import type { AccountWriteLimiter } from './account-write-limits.js';
import { getAccount } from './accounts.js';
import { toLearningFull } from './learning-view.js';
import { creditSettled, lockedPayeeOf, type Payee, payeeOf, recordUnlock } from './ledger.js';
import { hasAcceptedCurrentTerms } from './terms.js';
import {
  type PaymentIdKey,
  type PriorPayment,
  type X402ExtensionsService,
  abandonPaymentId,
  completePaymentId,
  grantSignIn,
  paymentIdLapsed,
  paymentInProgress,
  priorPayment,
  releasePaymentId,
  reservePaymentId,
} from './x402-extensions.js';
import { creditsStore } from '../store/credits.js';
import type { Queryable, Transactor } from '../store/queryable.js';
import { type LearningTotals, ledgerStore } from '../store/ledger.js';
import { type Demand, type LearningRecord, learningsStore } from '../store/learnings.js';
import { type ClaimKey, type PaymentClaimRow, type PaymentState, paymentClaimsStore } from '../store/payment-claims.js';
import { walletKey } from '../store/wallets.js';

const DAY_MS = 86_400_000;
/** A POST /knowledge search by the same account this recently makes an unlock discovery-driven (60% share). */
export const DISCOVERY_WINDOW_MS = DAY_MS;
const REPEAT_WINDOW_MS = LIMITS.repeatUnlockWindowDays * DAY_MS;
const REPEAT_NOT_SETTLED = 'not settled: repeat unlock within the repeat window';
/** Submitted settlements one reconciliation pass looks at. */
const RECONCILE_BATCH = 100;
/** A submitted payment is reconciled once its request's receipt wait is over by this much. */
const RECONCILE_GRACE_MS = 30_000;

/** Thrown in the claim's transaction (rolling it back): another payment by the payer for the learning is open. */
class OtherPaymentPending extends Error {
  constructor(readonly row: PaymentClaimRow) {
    super('another payment for this learning is pending');
  }
}

export type UnlockCredential =
  | { kind: 'key'; accountId: string }
  | { kind: 'payment'; header: string; carrier: 'X-Payment' | 'PAYMENT-SIGNATURE' }
  | { kind: 'none' };

export interface UnlockRequest {
  learningId: string;
  credential: UnlockCredential;
  /** X-Wallet-Address: an unverified claim to be the contributor. */
  walletClaim?: string;
  /** SIGN-IN-WITH-X: a wallet's proof that it paid for the learning before. */
  signInWithX?: string;
}

export interface UnlockResult {
  learning: LearningFull;
  /** Answer header for a payment: X-PAYMENT-RESPONSE (to X-Payment) or PAYMENT-RESPONSE. */
  paymentResponse?: { header: string; value: string };
}

/** A 402: the body's fields are in `details`; the v2 PAYMENT-REQUIRED header value rides along. */
export class PaymentRequiredError extends DomainError {
  constructor(
    code: string,
    message: string,
    details: Record<string, unknown>,
    readonly paymentRequiredHeader: string,
    /** No credential at all: the answer also carries X-Payment-Required: true. */
    readonly noCredential = false,
  ) {
    super(code, message, details);
  }
}

export interface UnlockService {
  unlock(req: UnlockRequest): Promise<UnlockResult>;
  readonly settlementMode: SettlementMode;
  /**
   * Reconciles submitted x402 settlements (oldest first, at most `limit`) against the chain: settled ones
   * credit their shares, failed ones record why. Safe to run from several instances (final states stay final).
   */
  reconcilePayments(limit?: number): Promise<Record<'settled' | 'failed' | 'submitted', number>>;
}

export interface UnlockDeps {
  db: Transactor;
  clock: Clock;
  logger: Logger;
  baseUrl(): string;
  payTo: string;
  routerAddress?: string;
  settler: Settler;
  /** How long a request waits for its settlement's receipt (AXLE_SETTLEMENT_WAIT_MS). */
  settlementWaitMs: number;
  extensions: X402ExtensionsService;
  writeLimits: AccountWriteLimiter;
}

/** What an unlock reads first (learningsStore.forUnlock). */
interface Read {
  learning: LearningRecord;
  demand: Demand;
  /** When a POST /knowledge search last showed the learning to the buying account. */
  surfacedAt: number | null;
}

/** A paid (or capped) x402 unlock as booked: what it answers with. */
interface Booked {
  revenue: LearningFull['_revenue'];
  txHash: string | null;
  /** Its payment is settled: the answer carries a signed receipt. */
  settled: boolean;
  /** The learning's running totals after it, when it counted. */
  totals?: LearningTotals;
}

/** How a free read came: the owner's own key, a repeat by key, a repeat by x402 wallet (SIGN-IN-WITH-X). */
type FreePath = 'owner' | 'key' | 'x402';

const sameWallet = (a: string | null | undefined, b: string | null | undefined) =>
  !!a && !!b && a.toLowerCase() === b.toLowerCase();

export function createUnlockService(deps: UnlockDeps): UnlockService {
  const { db, clock, settler } = deps;

  /**
   * The price a payment may be for: the current price, or the price before the last reprice while a 402 that
   * showed it is still valid (maxTimeoutSeconds), so a search repricing the learning meanwhile does not refuse
   * a buyer paying what they were shown.
   */
  const payablePrice = (l: LearningRecord, value: string): number =>
    l.priorPriceMicro !== null &&
    value === String(l.priorPriceMicro) &&
    clock.now() - l.lastRepricedAt <= MAX_TIMEOUT_SECONDS * 1000
      ? l.priorPriceMicro
      : l.currentPriceMicro;

  function termsFor(l: LearningRecord, priceMicro = l.currentPriceMicro): PaymentTerms {
    return {
      priceMicro,
      resource: `${deps.baseUrl()}/knowledge/${l.id}`,
      // Neutral: x402 clients hand the description to the paying agent as plain text, so no contributor words.
      description: `Unlock of Axle learning ${l.id}`,
      payTo: deps.routerAddress ?? deps.payTo,
      router: deps.routerAddress,
    };
  }

  /**
   * The terms a claimed payment was made on: its value (a payable price when it was verified, and what moved on chain),
   * whatever the learning costs now, a search having perhaps repriced it since.
   */
  const claimedTerms = (l: LearningRecord, row: PaymentClaimRow) => {
    const { authorization } = JSON.parse(row.payload ?? '{}') as { authorization: { value: string } };
    return termsFor(l, Number(authorization.value));
  };

  async function paymentRequired(
    l: LearningRecord,
    code: string,
    error: string,
    extra: Record<string, unknown>,
    noCredential = false,
  ) {
    const t = termsFor(l);
    return new PaymentRequiredError(
      code,
      error,
      { x402Version: 2, accepts: [requirementV1(t)], ...extra },
      paymentRequiredHeader(t, l.id, error, await deps.extensions.declarations(t.resource)),
      noCredential,
    );
  }

  function options(l: LearningRecord) {
    return {
      api_key: {
        header: 'X-API-Key',
        format: 'axl_ followed by 43 base62 characters',
        obtain:
          'POST /auth/magic-link, GET /auth/verify, POST /account/api-keys; ' +
          'buy unlock credits with POST /checkout/session',
        how_to_authenticate: 'Send X-API-Key: axl_… (or Authorization: Bearer axl_…); each unlock uses one credit',
      },
      x402_payment: {
        header: 'X-Payment',
        price_usd: microToUsd(l.currentPriceMicro),
        description:
          `Sign a USDC TransferWithAuthorization on ${NETWORK} for the amount in accepts[0] ` +
          'and send it base64-encoded',
        protocol: 'x402',
      },
    };
  }

  /** The contributor's account has accepted some terms, but not the version in force. */
  async function notOnboarded(q: Queryable, payee: Payee | null): Promise<boolean> {
    if (!payee?.holder.startsWith('acc_')) return false;
    // An account payee is held exactly when it never accepted any terms (payeeOf).
    return !payee.held && !(await hasAcceptedCurrentTerms(q, payee.holder));
  }

  /**
   * The answer: the learning and its demand as read at the unlock's start (so at the price it charged), with
   * the running totals the unlock left and the unlock itself counted when it counted.
   */
  async function respond(
    read: Read,
    revenue: LearningFull['_revenue'],
    totals?: LearningTotals,
  ): Promise<LearningFull> {
    const learning = { ...read.learning, ...totals };
    const { demand } = read;
    const helpfulnessScores = learning.ratingCount > 0 ? await learningsStore.helpfulnessScores(db, learning.id) : [];
    const counted = totals ? { unlocks7d: demand.unlocks7d + 1, unlocks30d: demand.unlocks30d + 1 } : {};
    const fields = toLearningFull(learning, { demand: { ...demand, ...counted }, helpfulnessScores }, clock.now());
    return { ...fields, _revenue: revenue };
  }

  const ownerRecall = (priceMicro: number): LearningFull['_revenue'] => ({
    unlock_price_usd: microToUsd(priceMicro),
    amount_paid_usd: 0,
    contributor_earned_usd: 0,
    platform_earned_usd: 0,
    self_unlock: true,
    owner_recall_free: true,
  });

  const capped = (priceMicro: number): LearningFull['_revenue'] => ({
    unlock_price_usd: microToUsd(priceMicro),
    amount_paid_usd: 0,
    contributor_earned_usd: 0,
    platform_earned_usd: 0,
    accrual_capped: true,
  });

  /** Books a repeat unlock inside the repeat window: nothing paid, nothing accrued. */
  const recordCapped = (q: Queryable, learningId: string, buyer: string, path: 'key' | 'x402', now: number) =>
    recordUnlock(q, {
      learningId,
      buyer,
      path,
      paidMicro: 0,
      discovery: false,
      selfDealing: false,
      accrualCapped: true,
      payee: null,
      now,
    });

  /**
   * Books a free read (the owner's recall, a repeat within the window) once per buyer, learning and repeat window:
   * reading again within it writes nothing. Free reads move no money and no demand; the first one is the trace.
   */
  const recordFreeRead = async (q: Queryable, learningId: string, buyer: string, path: FreePath, now: number) => {
    if (await ledgerStore.freeReadSince(q, buyer, learningId, now - REPEAT_WINDOW_MS)) return;
    if (path !== 'owner') await recordCapped(q, learningId, buyer, path, now);
    else
      await recordUnlock(q, {
        learningId,
        buyer,
        path,
        paidMicro: 0,
        discovery: false,
        selfDealing: true,
        accrualCapped: false,
        payee: null,
        now,
      });
  };

  async function viaKey(read: Read, accountId: string, walletClaim: string | undefined): Promise<UnlockResult> {
    const l = read.learning;
    const priceMicro = l.currentPriceMicro;
    // The key was found with its live account; the account is read only for a wallet to compare.
    const owner =
      l.contributorAccountId === accountId ||
      (l.contributorWallet !== null && sameWallet((await getAccount(db, accountId))?.wallet, l.contributorWallet));
    // A POST /knowledge search by the account showed it within the discovery window.
    const discovery = !owner && read.surfacedAt !== null && read.surfacedAt >= clock.now() - DISCOVERY_WINDOW_MS;
    // Read committed: one buyer's burst of unlocks of different learnings runs side by side, meeting only on
    // the buyer's credit row. What keeps it exact: a lock on the buyer and this learning guards the repeat
    // check (a second unlock of it waits, then sees the first as a repeat); a held payee is locked
    // (lockedPayeeOf); the credit is taken by an UPDATE that holds only if the row is as read (a lost race
    // reads again), and the money behind it, not the price, caps what is booked: one credit unlocks a
    // learning of any price, and no share may come out of money nobody paid; every other write is an insert
    // or an increment. No credit left: nothing was booked, and the balance is read after the transaction.
    const booking = await db.tx(
      async (q): Promise<{ revenue: LearningFull['_revenue']; totals?: LearningTotals } | 'exhausted'> => {
        const now = clock.now();
        await q.lock(`unlock:${accountId}:${l.id}`);
        if (owner) {
          await recordFreeRead(q, l.id, accountId, 'owner', now);
          return { revenue: ownerRecall(priceMicro) };
        }
        const payee = await lockedPayeeOf(q, l);
        if (await notOnboarded(q, payee)) throw onboardingError(l);
        if (await ledgerStore.lastUnlock(q, accountId, l.id, now - REPEAT_WINDOW_MS)) {
          await recordFreeRead(q, l.id, accountId, 'key', now);
          return { revenue: capped(priceMicro) };
        }
        // A suspended account still reads what it owns or bought; it spends no credits (docs/auth.md). Read here, on
        // the paid path only, and in the transaction that takes the credit.
        if ((await getAccount(q, accountId))?.suspended)
          throw new DomainError(ERROR_CODES.ACCOUNT_SUSPENDED, 'Account suspended');
        const creditMicro = await creditsStore.takeUnlock(q, accountId, now);
        if (creditMicro === undefined) return 'exhausted';
        const selfDealing = sameWallet(walletClaim, l.contributorWallet);
        const { split, totals } = await recordUnlock(q, {
          learningId: l.id,
          buyer: accountId,
          path: 'key',
          paidMicro: Math.min(priceMicro, creditMicro),
          discovery,
          selfDealing,
          accrualCapped: false,
          payee,
          last: true,
          now,
        });
        return { revenue: revenueOf(priceMicro, split, selfDealing), totals };
      },
      { isolation: 'read committed' },
    );
    if (booking === 'exhausted') {
      const c = await creditsStore.balance(db, accountId);
      throw await paymentRequired(l, ERROR_CODES.CREDITS_EXHAUSTED, 'Credits exhausted', {
        message:
          'This key has no unlock credits left. ' +
          'Buy a credit pack (POST /checkout/session) or pay per unlock with x402.',
        credits: { queries_remaining: c.queries, unlocks_remaining: c.unlocks },
        options: { ...options(l), reset_at: null },
      });
    }
    return { learning: await respond(read, booking.revenue, booking.totals) };
  }

  function revenueOf(
    priceMicro: number,
    split: { grossMicro: number; contributorMicro: number; platformMicro: number },
    selfDealing: boolean,
  ) {
    return {
      unlock_price_usd: microToUsd(priceMicro),
      amount_paid_usd: microToUsd(split.grossMicro),
      contributor_earned_usd: microToUsd(split.contributorMicro),
      platform_earned_usd: microToUsd(split.platformMicro),
      ...(selfDealing && { self_unlock: true as const }),
    };
  }

  const onboardingError = (l: LearningRecord) =>
    new DomainError(
      ERROR_CODES.CONTRIBUTOR_NOT_ONBOARDED,
      'The contributor of this learning has not accepted the current terms',
      {
        learning_id: l.id,
      },
    );

  async function viaPayment(
    read: Read,
    header: string,
    carrier: string,
    walletClaim: string | undefined,
  ): Promise<UnlockResult> {
    const l = read.learning;
    let t = termsFor(l);
    const reject = (message: string) => paymentRequired(l, ERROR_CODES.PAYMENT_INVALID, message, {});
    let payment: ReturnType<typeof decodePayment>;
    let payer: `0x${string}`;
    let idKey: PaymentIdKey | undefined;
    const refused = async (err: unknown) => {
      if (err instanceof PaymentFormatError || err instanceof PaymentRejected) return reject(err.message);
      if (err instanceof SettlementUnavailable) return unavailable(err);
      return err;
    };
    try {
      payment = decodePayment(header);
      t = termsFor(l, payablePrice(l, payment.authorization.value));
      payer = await verifyAuthorization(
        payment,
        { priceMicro: t.priceMicro, payTo: t.payTo, maxTimeoutSeconds: MAX_TIMEOUT_SECONDS },
        clock.now(),
      );
      const id = paymentIdentifierOf(payment);
      idKey = id ? { id, fingerprint: paymentFingerprint(l.id, payer, payment) } : undefined;
    } catch (err) {
      throw await refused(err);
    }
    // The contributor paying itself, through the learning's wallet or the owner account's linked one: no accrual.
    const ownerWallet = l.contributorAccountId ? (await getAccount(db, l.contributorAccountId))?.wallet : undefined;
    const selfDealing =
      sameWallet(payer, l.contributorWallet) ||
      sameWallet(walletClaim, l.contributorWallet) ||
      sameWallet(payer, ownerWallet);
    const responseHeader = carrier === 'X-Payment' ? 'X-PAYMENT-RESPONSE' : 'PAYMENT-RESPONSE';
    // The answer for a settled payment carries a signed receipt (offer/receipt: a receipt says the payment was
    // received); one served while settling, verified offline only, or a capped repeat's does not.
    const answer = async (txHash: string | null, settled: boolean) => ({
      header: responseHeader,
      value: encodePaymentResponseHeader({
        success: true,
        transaction: txHash ?? '',
        network: NETWORK,
        payer,
        ...(settled && { extensions: await receiptExtension(await deps.extensions.receipt(t.resource, payer)) }),
      }),
    });
    // What an id bought answers it only while the payer holds the learning by a payment that stands (a paid unlock of
    // it within the repeat window, not failed to settle): past that, the id's answer would be a free read for good.
    const replay = async (prior: PriorPayment): Promise<UnlockResult> => {
      if (!(await ledgerStore.lastUnlock(db, walletKey(payer), l.id, clock.now() - REPEAT_WINDOW_MS)))
        throw paymentIdLapsed();
      // Its receipt once its payment has settled (served while settling, reconciliation may have settled it since).
      const row = prior.nonce
        ? await paymentClaimsStore.get(db, { chainId: CHAIN_ID, payer, nonce: prior.nonce })
        : null;
      return {
        learning: await respond(read, prior.revenue as LearningFull['_revenue']),
        paymentResponse: await answer(prior.txHash, row?.state === 'settled'),
      };
    };
    // The same payment under its id again: what it bought, with nothing verified or settled a second time.
    const prior = idKey && (await priorPayment(db, idKey, quietSince()));
    if (prior && !('abandoned' in prior)) return replay(prior);
    const claim: ClaimKey = { chainId: CHAIN_ID, payer, nonce: payment.authorization.nonce };
    const settlementPath = deps.routerAddress ? 'router' : settler.mode;
    // The refusal book() may throw, built before any transaction: a first 402 loads the payment extensions.
    const alreadyUsed = await reject('payment authorization already used');

    /**
     * Records the paid unlock and ties the claim to it, in the caller's transaction. The contributor share
     * is credited only when the payment has settled (here, or already by reconciliation); otherwise it is
     * awaiting_settlement and the settlement credits it.
     */
    const book = async (
      q: Queryable,
      outcome: { state: PaymentState; txHash: string | null },
      c: ClaimKey = claim,
      terms: typeof t = t,
    ): Promise<Booked> => {
      const row = await paymentClaimsStore.get(q, c);
      if (!row || row.unlock_id) throw alreadyUsed;
      const state = row.state === 'settled' ? 'settled' : outcome.state;
      const txHash = row.state === 'settled' ? row.tx_hash : outcome.txHash;
      const { id, split, totals } = await recordUnlock(q, {
        learningId: l.id,
        buyer: walletKey(payer),
        path: 'x402',
        paidMicro: terms.priceMicro,
        discovery: false,
        selfDealing,
        accrualCapped: false,
        payee: await payeeOf(q, l),
        settlementPath,
        txHash,
        credit: state === 'settled',
        now: clock.now(),
      });
      await paymentClaimsStore.attachUnlock(q, c, id);
      if (state !== 'verified') await paymentClaimsStore.setState(q, c, { state, txHash, now: clock.now() });
      const revenue = revenueOf(terms.priceMicro, split, selfDealing);
      if (idKey) await completePaymentId(q, idKey.id, revenue, txHash);
      return { revenue, txHash, settled: state === 'settled', totals };
    };

    const served = async (b: Booked): Promise<UnlockResult> => {
      const settlement =
        deps.routerAddress && b.txHash
          ? { settlement: { tx_hash: b.txHash, path: settlementPath, router: deps.routerAddress } }
          : {};
      return {
        learning: await respond(read, { ...b.revenue, ...settlement }, b.totals),
        paymentResponse: await answer(b.txHash, b.settled),
      };
    };

    // The id was reserved by a request that ended unfinished: what its payment came to decides this one.
    if (prior && 'abandoned' in prior) {
      let booked: Booked | undefined;
      try {
        booked = await settleAbandoned({ ...claim, nonce: prior.abandoned.nonce }, idKey!, l, book);
      } catch (err) {
        // Another send under the id (on this instance or another) settled the matter meanwhile.
        const settled = await priorPayment(db, idKey!);
        if (settled && 'abandoned' in settled) throw paymentInProgress();
        if (settled) return replay(settled);
        throw err;
      }
      if (booked) return served(booked);
    }

    // Claim the authorization first: a replayed header is refused. When the payer already holds the
    // unlock the claim is kept but never settled, so the buyer is not charged twice.
    const payload = JSON.stringify({ authorization: payment.authorization, signature: payment.signature });
    const claimOnce = () =>
      db.tx(async (q) => {
        const now = clock.now();
        // One wallet's payments for one learning are claimed one at a time, across instances: the repeat check
        // below then sees the other's unlock, or its claim still pending.
        await q.lock(`unlock:${walletKey(payer)}:${l.id}`);
        if (await notOnboarded(q, await payeeOf(q, l))) throw onboardingError(l);
        const prior = idKey && (await reservePaymentId(q, idKey, { learningId: l.id, payer, nonce: claim.nonce, now }));
        if (prior) return { prior };
        if (!(await paymentClaimsStore.claim(q, { ...claim, learningId: l.id, payload, now }))) return 'taken' as const;
        if (await ledgerStore.lastUnlock(q, walletKey(payer), l.id, now - REPEAT_WINDOW_MS)) {
          // A free read per fresh authorization: limited per wallet (the signer, verified above), rolling this claim
          // back past it. A first paid unlock is never counted.
          await deps.writeLimits.take('walletRepeatUnlock', walletKey(payer), q);
          const { id } = await recordCapped(q, l.id, walletKey(payer), 'x402', now);
          await paymentClaimsStore.attachUnlock(q, claim, id);
          await paymentClaimsStore.setState(q, claim, { state: 'failed', reason: REPEAT_NOT_SETTLED, now });
          if (idKey) await completePaymentId(q, idKey.id, capped(t.priceMicro), null);
          return { revenue: capped(t.priceMicro), txHash: null, settled: false };
        }
        // Another payment by this wallet for this learning may still settle, or settled unbooked: this one is not
        // settled beside it (the throw rolls this claim and id back). One its request left is settled first.
        const pending = await paymentClaimsStore.pendingFor(q, { ...claim, learningId: l.id });
        if (pending && (settler.reconciles || pending.state === 'settled' || (pending.updated_at ?? 0) > quietSince()))
          throw new OtherPaymentPending(pending);
        // No way to settle: served, the share awaiting settlement for good.
        if (settler.mode === 'offline') return book(q, { state: 'verified', txHash: null });
        // The wallet's payments refused for its own reasons: counted before anyone is asked about this one, so racing
        // payments cannot pass the limit together, and given back below unless it is refused. Past the limit the take
        // throws the 429, rolling this claim and the hit back.
        await deps.writeLimits.take('walletRefusedPayment', walletKey(payer), q);
        return null;
      });
    const notRefused = (q: Queryable) => deps.writeLimits.refund('walletRefusedPayment', walletKey(payer), q);
    let claimed: Awaited<ReturnType<typeof claimOnce>> | undefined;
    for (let attempt = 0; claimed === undefined; attempt++) {
      try {
        claimed = await claimOnce();
      } catch (err) {
        if (!(err instanceof OtherPaymentPending)) throw err;
        const other = err.row;
        const fresh = other.state !== 'settled' && (other.updated_at ?? 0) > quietSince();
        if (attempt > 1 || fresh) throw otherPaymentPending(other);
        // Left by a request no longer running, or reverted: where the chain says it stands decides this one.
        const status = await reconcileOne(other);
        if (status.state === 'submitted') throw otherPaymentPending(other);
        if (status.state === 'settled') {
          // That payment bought the learning: it is booked and answers this request, whose payment is not used.
          // Booked meanwhile by another request: this one is claimed again, and served as a repeat.
          const terms = claimedTerms(l, other);
          const key = { chainId: other.chain_id, payer: other.payer, nonce: other.nonce };
          const booked = await db
            .tx((q) => book(q, { state: 'settled', txHash: status.txHash }, key, terms))
            .catch((e: unknown) => {
              if (e === alreadyUsed) return undefined;
              throw e;
            });
          if (booked) return served(booked);
        }
        // Failed (nothing moved) or booked by another request: this payment is claimed again.
      }
    }
    if (claimed === 'taken') return served(await resume(claim, l.id, reject, book));
    if (claimed && 'prior' in claimed) return replay(claimed.prior!);
    if (claimed) return served(claimed);

    let outcome: { state: 'settled' | 'submitted'; txHash: string };
    try {
      // The facilitator sees a payment only once it is to be settled: a repeat's, or one refused beside another in
      // flight, is never settled, and a facilitator holding it could still submit it (the payer paying twice).
      await settler.verify(payment, requirementV2(t));
      outcome = await settler.settle(payment, requirementV2(t), (txHash) =>
        db.tx(async (q) => {
          if (!(await paymentClaimsStore.setState(q, claim, { state: 'submitted', txHash, now: clock.now() })))
            throw new SettlementUnavailable('the payment was reconciled while this request settled it');
        }),
      );
    } catch (err) {
      if (err instanceof SettlementUnavailable && err.maybeSent && settler.reconciles) {
        // The facilitator may have settled: the claim stays open for reconciliation, and the same payment
        // sent again is served once the chain shows it settled. The id stays bound to this claim, so a
        // re-signed send under it is answered by this payment, never charged a second time.
        await db.tx(async (q) => {
          await notRefused(q);
          if (idKey) await abandonPaymentId(q, idKey.id, clock.now());
        });
        deps.logger.warn({ err: err.message }, 'x402 settlement outcome unknown');
        throw new DomainError(
          ERROR_CODES.PROVIDER_UNAVAILABLE,
          'payment settlement outcome unknown; send the same payment again later, it is charged at most once',
        );
      }
      if (err instanceof SettlementFailed && err.open) {
        // Refused, but not final: the authorization, unused and valid, may still be submitted by anyone. The claim is
        // watched by reconciliation and the id stays bound to it; the same payment sent again is served once the
        // chain shows it paid. Once it expires unused it fails, and the next send under the id pays.
        await db.tx(async (q) => {
          const now = clock.now();
          await paymentClaimsStore.setState(q, claim, {
            state: 'reverted',
            reason: err.message,
            txHash: err.txHash,
            now,
          });
          await notRefused(q);
          if (idKey) await abandonPaymentId(q, idKey.id, now);
        });
        throw await reject(
          `${err.message}; the authorization stays usable until it expires: if it is used, send the same payment again`,
        );
      }
      const reason =
        err instanceof PaymentRejected || err instanceof SettlementUnavailable ? err.message : 'settlement error';
      // Nothing moved: the claim is failed with its reason, and may be claimed again by a retry. Refused for the
      // payer's own reasons (the facilitator's or the chain's judgement of its validly signed payment), its hit stays
      // counted against the wallet; an outage's is given back.
      await db.tx(async (q) => {
        await paymentClaimsStore.setState(q, claim, {
          state: 'failed',
          reason,
          txHash: err instanceof SettlementFailed ? err.txHash : null,
          now: clock.now(),
        });
        if (idKey) await releasePaymentId(q, idKey.id);
        if (!(err instanceof PaymentRejected)) await notRefused(q);
      });
      throw await refused(err);
    }
    return served(
      await db.tx(async (q) => {
        await notRefused(q);
        return book(q, outcome);
      }),
    );
  }

  /**
   * A payment-identifier reserved by a request that ended before booking or releasing it (its instance was killed
   * mid-settlement): its claim is brought to where the chain says it stands. Settled: that payment is booked, at
   * its own price, and answers this request (whose own payment is not used). Failed, or never claimed: the id is
   * freed and this request pays as a new one (undefined). Still unknown: 409 in progress.
   */
  async function settleAbandoned(
    c: ClaimKey,
    idKey: PaymentIdKey,
    l: LearningRecord,
    book: (
      q: Queryable,
      o: { state: PaymentState; txHash: string | null },
      c: ClaimKey,
      terms: ReturnType<typeof termsFor>,
    ) => Promise<Booked>,
  ): Promise<Booked | undefined> {
    const row = await paymentClaimsStore.get(db, c);
    if (row && !row.unlock_id && row.state !== 'failed') {
      if (!settler.reconciles && row.state !== 'settled') throw paymentInProgress();
      const status = await reconcileOne(row);
      if (status.state === 'submitted') throw paymentInProgress();
      if (status.state === 'settled') {
        // The id's fingerprint binds the learning: the claim's is this request's.
        const terms = claimedTerms(l, row);
        return db.tx((q) => book(q, { state: 'settled', txHash: status.txHash }, c, terms));
      }
    }
    await db.tx((q) => releasePaymentId(q, idKey.id));
    return undefined;
  }

  /**
   * The authorization is claimed already. A retry of a payment whose first request died after settling
   * (same learning, no unlock served for it) is served once the settlement is known; anything else is a replay.
   */
  async function resume(
    claim: ClaimKey,
    learningId: string,
    reject: (m: string) => Promise<Error>,
    book: (q: Queryable, o: { state: PaymentState; txHash: string | null }) => Promise<Booked>,
  ) {
    const row = await paymentClaimsStore.get(db, claim);
    if (
      !row ||
      row.learning_id !== learningId ||
      row.unlock_id ||
      row.state === 'failed' ||
      (row.state === 'verified' && !settler.reconciles)
    )
      throw await reject('payment authorization already used');
    const status = await reconcileOne(row);
    if (status.state !== 'settled')
      throw await reject('payment authorization already used; its settlement is not final yet');
    return db.tx((q) => book(q, { state: 'settled', txHash: status.txHash }));
  }

  /** Open payments last moved before this are no longer being settled by a request. */
  const quietSince = () => clock.now() - deps.settlementWaitMs - RECONCILE_GRACE_MS;

  /** Brings one open payment to where the chain says it stands, crediting or dropping its share. */
  async function reconcileOne(row: PaymentClaimRow): Promise<SettlementStatus> {
    if (row.state === 'settled') return { state: 'settled', txHash: row.tx_hash ?? '' };
    const { authorization, signature } = JSON.parse(row.payload ?? '{}') as {
      authorization: Authorization;
      signature: `0x${string}`;
    };
    // A request may still be settling one that moved since: it is read, not submitted again (a resend of its header).
    const quiet = (row.updated_at ?? 0) <= quietSince();
    let s: SettlementStatus;
    try {
      s = await settler.status({ authorization, signature, txHash: row.tx_hash, inFlight: !quiet }, clock.now());
    } catch (err) {
      deps.logger.warn({ err: (err as Error).message }, 'x402 reconciliation: chain unavailable');
      return { state: 'submitted' };
    }
    // Never submitted by this server and unused on chain: once no request can still be settling it, it failed
    // (nothing moved). One handed to a facilitator may have been broadcast by it: unknown until used or expired.
    if (settler.mode === 'chain' && row.state === 'verified' && s.state === 'submitted' && !s.txHash && quiet)
      s = { state: 'failed', reason: 'the request ended before the payment was settled; nothing moved' };
    const key = { chainId: row.chain_id, payer: row.payer, nonce: row.nonce };
    await db.tx(async (q) => {
      const now = clock.now();
      if (s.state === 'submitted') {
        if (s.txHash && s.txHash !== row.tx_hash) await paymentClaimsStore.setState(q, key, { ...s, now });
        return;
      }
      const changed = await paymentClaimsStore.setState(q, key, {
        state: s.state,
        txHash: s.txHash ?? null,
        reason: s.state === 'failed' ? s.reason : null,
        now,
      });
      const current = await paymentClaimsStore.get(q, key);
      if (changed && s.state === 'settled' && current?.unlock_id)
        await creditSettled(q, current.unlock_id, s.txHash, now);
    });
    if (s.state === 'failed') deps.logger.warn({ payer: row.payer, reason: s.reason }, 'x402 settlement failed');
    return s;
  }

  /** SIGN-IN-WITH-X: a wallet that paid for the learning within the repeat window reads it again, as a repeat. */
  async function viaSignIn(read: Read, header: string): Promise<UnlockResult | undefined> {
    const l = read.learning;
    const proof = await deps.extensions.signIn(header, termsFor(l).resource);
    if (!proof) return undefined;
    const revenue = await db.tx(async (q) => {
      const now = clock.now();
      if (!(await grantSignIn(q, proof, l.id, now))) return undefined;
      await recordFreeRead(q, l.id, walletKey(proof.wallet), 'x402', now);
      return capped(l.currentPriceMicro);
    });
    return revenue && { learning: await respond(read, revenue) };
  }

  /**
   * 409 for a payment refused beside `other`, an open one by the same wallet for the learning, with Retry-After until
   * `other` may be known to have ended: a reverted one's authorization expired, another's request no longer settling it.
   */
  const otherPaymentPending = (other: PaymentClaimRow) => {
    const now = clock.now();
    const retryAfter = (at: number) => Math.max(1, Math.ceil((at - now) / 1000));
    if (other.state === 'reverted') {
      const { authorization } = JSON.parse(other.payload ?? '{}') as { authorization: Authorization };
      return new DomainError(
        ERROR_CODES.PAYMENT_IN_PROGRESS,
        'An earlier payment by this wallet for this learning was refused when its settlement reverted, but its ' +
          'authorization stays valid until it expires and may still be settled by anyone; this payment was not ' +
          'charged. If the earlier payment is used, send it again: the learning is served to it. Once it has ' +
          'expired unused (Retry-After), send this payment again.',
        {},
        retryAfter(expiryJudgedAt(authorization)),
      );
    }
    return new DomainError(
      ERROR_CODES.PAYMENT_IN_PROGRESS,
      'Another payment by this wallet for this learning is being settled; this payment was not charged. ' +
        'Send it again shortly: once that payment settles, the learning is served to this wallet free.',
      {},
      retryAfter((other.updated_at ?? 0) + deps.settlementWaitMs + RECONCILE_GRACE_MS),
    );
  };

  const unavailable = (err: SettlementUnavailable) => {
    deps.logger.warn({ err: err.message }, 'x402 settlement unavailable');
    return new DomainError(ERROR_CODES.PROVIDER_UNAVAILABLE, 'payment settlement unavailable; nothing was charged');
  };

  return {
    settlementMode: settler.mode,

    async reconcilePayments(limit = RECONCILE_BATCH) {
      const counts = { settled: 0, failed: 0, submitted: 0 };
      // Only payments no request is still settling: reconciling one mid-flight could submit it a second time.
      if (!settler.reconciles) return counts;
      for (const row of await paymentClaimsStore.open(db, quietSince(), limit))
        counts[(await reconcileOne(row)).state] += 1;
      return counts;
    },

    async unlock({ learningId, credential, walletClaim, signInWithX }) {
      const ownerAccount = credential.kind === 'key' ? credential.accountId : undefined;
      const read = await learningsStore.forUnlock(db, learningId, ownerAccount ?? null, clock.now());
      const l = read?.learning;
      if (!read || !l || (l.status !== 'approved' && (!ownerAccount || l.contributorAccountId !== ownerAccount))) {
        throw new DomainError(ERROR_CODES.NOT_FOUND, 'Learning not found', { id: learningId });
      }
      if (credential.kind === 'key') return viaKey(read, credential.accountId, walletClaim);
      if (credential.kind === 'payment') return viaPayment(read, credential.header, credential.carrier, walletClaim);
      const again = signInWithX ? await viaSignIn(read, signInWithX) : undefined;
      if (again) return again;
      throw await paymentRequired(
        l,
        ERROR_CODES.PAYMENT_REQUIRED,
        'Payment required',
        {
          message: 'Unlock with an API key holding credits (X-API-Key) or an x402 payment (X-Payment).',
          options: options(l),
        },
        true,
      );
    },
  };
}
