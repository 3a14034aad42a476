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
import { paymentFingerprint, paymentIdentifierOf } from '../payments/payment-identifier.js';
import { receiptExtension } from '../payments/receipts.js';
import { type Settler, SettlementUnavailable } from '../payments/settlement.js';
import { getAccount } from './accounts.js';
import type { FullLearning } from './knowledge.js';
import { toLearningFull } from './learning-view.js';
import { type Payee, payeeOf, recordUnlock } from './ledger.js';
import { hasAcceptedCurrentTerms } from './terms.js';
import {
  type PaymentIdKey,
  type PriorPayment,
  type X402ExtensionsService,
  completePaymentId,
  grantSignIn,
  priorPayment,
  releasePaymentId,
  reservePaymentId,
} from './x402-extensions.js';
import { creditsStore } from '../store/credits.js';
import type { Database, Queryable } from '../store/db.js';
import { ledgerStore } from '../store/ledger.js';
import { type LearningRecord, learningsStore } from '../store/learnings.js';
import { paymentClaimsStore } from '../store/payment-claims.js';
import { termsStore } from '../store/terms.js';
import { walletKey } from '../store/wallets.js';

const DAY_MS = 86_400_000;
/** A POST /knowledge search by the same account this recently makes an unlock discovery-driven (60% share). */
export const DISCOVERY_WINDOW_MS = DAY_MS;
const REPEAT_WINDOW_MS = LIMITS.repeatUnlockWindowDays * DAY_MS;

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
}

export interface UnlockDeps {
  db: Database;
  clock: Clock;
  logger: Logger;
  baseUrl(): string;
  payTo: string;
  routerAddress?: string;
  settler: Settler;
  extensions: X402ExtensionsService;
  /** The learning with its demand, ratings and price (the marketplace's loadFull). */
  loadFull(id: string): Promise<FullLearning | undefined>;
}

/** The price a buyer pays: the contributor's override, else the current dynamic price search results showed. */
const unlockPriceMicro = (l: LearningRecord): number => l.overridePriceMicro ?? l.currentPriceMicro;

const sameWallet = (a: string | null | undefined, b: string | null | undefined) =>
  !!a && !!b && a.toLowerCase() === b.toLowerCase();

export function createUnlockService(deps: UnlockDeps): UnlockService {
  const { db, clock, settler } = deps;

  function termsFor(l: LearningRecord): PaymentTerms {
    return {
      priceMicro: unlockPriceMicro(l),
      resource: `${deps.baseUrl()}/knowledge/${l.id}`,
      description: `Unlock the full learning "${l.title.slice(0, 80)}"`,
      payTo: deps.routerAddress ?? deps.payTo,
      router: deps.routerAddress,
    };
  }

  function paymentRequired(
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
      paymentRequiredHeader(t, l.id, error, deps.extensions.declarations(t.resource)),
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
        price_usd: microToUsd(unlockPriceMicro(l)),
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
    return (await termsStore.hasAny(q, payee.holder)) && !(await hasAcceptedCurrentTerms(q, payee.holder));
  }

  async function respond(l: LearningRecord, revenue: LearningFull['_revenue']): Promise<LearningFull> {
    const full = await deps.loadFull(l.id);
    const demand = full?.demand ?? { impressions7d: 0, impressions30d: 0, unlocks7d: 0, unlocks30d: 0 };
    const fields = toLearningFull(
      full?.learning ?? l,
      { demand, helpfulnessScores: full?.helpfulnessScores ?? [], priceMicro: unlockPriceMicro(l) },
      clock.now(),
    );
    return { ...fields, _revenue: revenue };
  }

  /** A POST /knowledge search by the account showed the learning within the discovery window. */
  async function discovered(accountId: string, learningId: string): Promise<boolean> {
    const at = await learningsStore.surfacedAt(db, accountId, learningId);
    return at !== undefined && at >= clock.now() - DISCOVERY_WINDOW_MS;
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

  async function viaKey(l: LearningRecord, accountId: string, walletClaim: string | undefined): Promise<UnlockResult> {
    const priceMicro = unlockPriceMicro(l);
    const account = await getAccount(db, accountId);
    if (!account) throw new DomainError(ERROR_CODES.INVALID_API_KEY, 'Invalid API key');
    const owner = l.contributorAccountId === accountId || sameWallet(account.wallet, l.contributorWallet);
    const discovery = !owner && (await discovered(accountId, l.id));
    const revenue = await db.tx(async (q) => {
      const now = clock.now();
      if (owner) {
        await recordUnlock(q, {
          learningId: l.id,
          buyer: accountId,
          path: 'owner',
          paidMicro: 0,
          discovery: false,
          selfDealing: true,
          accrualCapped: false,
          payee: null,
          now,
        });
        return ownerRecall(priceMicro);
      }
      const payee = await payeeOf(q, l);
      if (await notOnboarded(q, payee)) throw onboardingError(l);
      if (await ledgerStore.lastUnlock(q, accountId, l.id, now - REPEAT_WINDOW_MS)) {
        await recordCapped(q, l.id, accountId, 'key', now);
        return capped(priceMicro);
      }
      if (!(await creditsStore.takeUnlock(q, accountId, now))) {
        const c = await creditsStore.balance(q, accountId);
        throw paymentRequired(l, ERROR_CODES.CREDITS_EXHAUSTED, 'Credits exhausted', {
          message:
            'This key has no unlock credits left. ' +
            'Buy a credit pack (POST /checkout/session) or pay per unlock with x402.',
          credits: { queries_remaining: c.queries, unlocks_remaining: c.unlocks },
          options: { ...options(l), reset_at: null },
        });
      }
      const selfDealing = sameWallet(walletClaim, l.contributorWallet);
      const { split } = await recordUnlock(q, {
        learningId: l.id,
        buyer: accountId,
        path: 'key',
        paidMicro: priceMicro,
        discovery,
        selfDealing,
        accrualCapped: false,
        payee,
        now,
      });
      return revenueOf(priceMicro, split, selfDealing);
    });
    return { learning: await respond(l, revenue) };
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
    l: LearningRecord,
    header: string,
    carrier: string,
    walletClaim: string | undefined,
  ): Promise<UnlockResult> {
    const t = termsFor(l);
    const reject = (message: string) => paymentRequired(l, ERROR_CODES.PAYMENT_INVALID, message, {});
    let payment: ReturnType<typeof decodePayment>;
    let payer: `0x${string}`;
    let idKey: PaymentIdKey | undefined;
    const refused = (err: unknown) => {
      if (err instanceof PaymentFormatError || err instanceof PaymentRejected) return reject(err.message);
      if (err instanceof SettlementUnavailable) return unavailable(err);
      return err;
    };
    try {
      payment = decodePayment(header);
      payer = await verifyAuthorization(
        payment,
        { priceMicro: t.priceMicro, payTo: t.payTo, maxTimeoutSeconds: MAX_TIMEOUT_SECONDS },
        clock.now(),
      );
      const id = paymentIdentifierOf(payment);
      idKey = id ? { id, fingerprint: paymentFingerprint(l.id, payer, payment) } : undefined;
    } catch (err) {
      throw refused(err);
    }
    const claim = { chainId: CHAIN_ID, payer, nonce: payment.authorization.nonce, learningId: l.id };
    const selfDealing = sameWallet(payer, l.contributorWallet) || sameWallet(walletClaim, l.contributorWallet);
    const responseHeader = carrier === 'X-Payment' ? 'X-PAYMENT-RESPONSE' : 'PAYMENT-RESPONSE';
    // A settled payment's answer carries a signed receipt (offer/receipt extension); a capped repeat's does not.
    const answer = async (txHash: string | null, settled: boolean) => ({
      header: responseHeader,
      value: encodePaymentResponseHeader({
        success: true,
        transaction: txHash ?? '',
        network: NETWORK,
        payer,
        ...(settled && { extensions: receiptExtension(await deps.extensions.receipt(t.resource, payer)) }),
      }),
    });
    const replay = async (prior: PriorPayment): Promise<UnlockResult> => ({
      learning: await respond(l, prior.revenue as LearningFull['_revenue']),
      paymentResponse: await answer(prior.txHash, !prior.revenue.accrual_capped),
    });
    // The same payment under its id again: what it bought, with nothing verified or settled a second time.
    const prior = idKey && (await priorPayment(db, idKey));
    if (prior) return replay(prior);
    try {
      await settler.verify(payment, requirementV2(t));
    } catch (err) {
      throw refused(err);
    }

    // Records the paid unlock and ties the claim to it, in the caller's transaction.
    const book = async (
      q: Queryable,
      payee: Payee | null,
      settlementPath: string,
      tx: string | null,
    ): Promise<LearningFull['_revenue']> => {
      const { id, split } = await recordUnlock(q, {
        learningId: l.id,
        buyer: walletKey(payer),
        path: 'x402',
        paidMicro: t.priceMicro,
        discovery: false,
        selfDealing,
        accrualCapped: false,
        payee,
        settlementPath,
        txHash: tx,
        now: clock.now(),
      });
      await paymentClaimsStore.attachUnlock(q, claim, id);
      const revenue = revenueOf(t.priceMicro, split, selfDealing);
      if (idKey) await completePaymentId(q, idKey.id, revenue, tx);
      return revenue;
    };

    // Claim the authorization first: a replayed header is refused. When the payer already holds the
    // unlock the claim is kept but never settled, so the buyer is not charged twice.
    const claimed = await db.tx(async (q) => {
      const now = clock.now();
      const payee = await payeeOf(q, l);
      if (await notOnboarded(q, payee)) throw onboardingError(l);
      const prior = idKey && (await reservePaymentId(q, idKey, { learningId: l.id, payer, now }));
      if (prior) return { prior };
      if (!(await paymentClaimsStore.claim(q, { ...claim, now }))) throw reject('payment authorization already used');
      if (await ledgerStore.lastUnlock(q, walletKey(payer), l.id, now - REPEAT_WINDOW_MS)) {
        const { id } = await recordCapped(q, l.id, walletKey(payer), 'x402', now);
        await paymentClaimsStore.attachUnlock(q, claim, id);
        if (idKey) await completePaymentId(q, idKey.id, capped(t.priceMicro), null);
        return { revenue: capped(t.priceMicro), settled: false };
      }
      return settler.path === 'local' ? { revenue: await book(q, payee, 'local', null), settled: true } : null;
    });
    if (claimed && 'prior' in claimed) return replay(claimed.prior!);
    if (claimed) {
      return { learning: await respond(l, claimed.revenue), paymentResponse: await answer(null, claimed.settled) };
    }

    let txHash: string | null;
    try {
      ({ txHash } = await settler.settle(payment, requirementV2(t)));
    } catch (err) {
      await db.tx(async (q) => {
        await paymentClaimsStore.release(q, claim);
        if (idKey) await releasePaymentId(q, idKey.id);
      });
      throw refused(err);
    }
    const path = deps.routerAddress ? 'router' : 'facilitator';
    const revenue = await db.tx(async (q) => book(q, await payeeOf(q, l), path, txHash));
    const settlement =
      deps.routerAddress && txHash ? { settlement: { tx_hash: txHash, path, router: deps.routerAddress } } : {};
    return { learning: await respond(l, { ...revenue, ...settlement }), paymentResponse: await answer(txHash, true) };
  }

  /** SIGN-IN-WITH-X: a wallet that paid for the learning within the repeat window reads it again, as a repeat. */
  async function viaSignIn(l: LearningRecord, header: string): Promise<UnlockResult | undefined> {
    const proof = await deps.extensions.signIn(header, termsFor(l).resource);
    if (!proof) return undefined;
    const revenue = await db.tx(async (q) => {
      const now = clock.now();
      if (!(await grantSignIn(q, proof, l.id, now))) return undefined;
      await recordCapped(q, l.id, walletKey(proof.wallet), 'x402', now);
      return capped(unlockPriceMicro(l));
    });
    return revenue && { learning: await respond(l, revenue) };
  }

  const unavailable = (err: SettlementUnavailable) => {
    deps.logger.warn({ err: err.message }, 'x402 settlement unavailable');
    return new DomainError(ERROR_CODES.PROVIDER_UNAVAILABLE, 'payment settlement unavailable; nothing was charged');
  };

  return {
    async unlock({ learningId, credential, walletClaim, signInWithX }) {
      const l = await learningsStore.byId(db, learningId);
      const ownerAccount = credential.kind === 'key' ? credential.accountId : undefined;
      if (!l || (l.status !== 'approved' && (!ownerAccount || l.contributorAccountId !== ownerAccount))) {
        throw new DomainError(ERROR_CODES.NOT_FOUND, 'Learning not found', { id: learningId });
      }
      if (credential.kind === 'key') return viaKey(l, credential.accountId, walletClaim);
      if (credential.kind === 'payment') return viaPayment(l, credential.header, credential.carrier, walletClaim);
      const again = signInWithX ? await viaSignIn(l, signInWithX) : undefined;
      if (again) return again;
      throw paymentRequired(
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
