import { ERROR_CODES, LIMITS } from '@axle/sdk';
import type { JWSSignedReceipt } from '@x402/extensions/offer-receipt';
import type { Clock } from '../clock.js';
import { DomainError } from '../domain/errors.js';
import { paymentIdentifierDeclaration } from '../payments/payment-identifier.js';
import { type ReceiptSigner, createReceiptSigner, newSigningKey } from '../payments/receipts.js';
import { SIWX_TTL_SECONDS, type SiwxProof, createSiwx } from '../payments/siwx.js';
import type { Queryable, Transactor } from '../store/queryable.js';
import { walletKey } from '../store/wallets.js';
import { x402ExtensionsStore } from '../store/x402-extensions.js';

const RECEIPT_KEY_ID = 'x402-receipts';
const REPEAT_WINDOW_MS = LIMITS.repeatUnlockWindowDays * 86_400_000;
/**
 * How long a used nonce is kept past its proof's expiry: a proof's lifetime again, so an instance whose clock runs
 * ahead (by up to that) never prunes a nonce another instance still holds unexpired.
 */
const NONCE_KEPT_MS = SIWX_TTL_SECONDS * 1000;

/**
 * The x402 extensions Axle speaks beyond the exact scheme: payment-identifier (idempotent payments),
 * sign-in-with-x (a wallet that paid reads again) and offer/receipt (signed receipts of settled payments).
 */
export interface X402ExtensionsService {
  /** The `extensions` a 402 for `resourceUrl` declares (besides the Bazaar's). */
  declarations(resourceUrl: string): Promise<Record<string, unknown>>;
  /** A valid, current SIGN-IN-WITH-X proof for `resourceUrl`, or undefined. */
  signIn(header: string, resourceUrl: string): Promise<SiwxProof | undefined>;
  /** A signed receipt of a settled payment. */
  receipt(resourceUrl: string, payer: string): Promise<JWSSignedReceipt>;
  /** GET /.well-known/did.json: the key receipts are signed with. */
  didDocument(): Promise<Record<string, unknown>>;
}

export function createX402ExtensionsService(deps: {
  db: Transactor;
  clock: Clock;
  baseUrl(): string;
  /** Server secret the stateless SIWX nonces are keyed from. */
  secret: Uint8Array;
}): X402ExtensionsService {
  const siwx = createSiwx(deps.secret);
  // The key is made once for all instances (first insert wins), and read at the first receipt.
  let signer: Promise<ReceiptSigner> | undefined;
  const receipts = () =>
    (signer ??= (async () => {
      const made = newSigningKey();
      await x402ExtensionsStore.insertSigningKey(
        deps.db,
        RECEIPT_KEY_ID,
        JSON.stringify(made.privateJwk),
        JSON.stringify(made.publicJwk),
        deps.clock.now(),
      );
      const row = (await x402ExtensionsStore.signingKey(deps.db, RECEIPT_KEY_ID))!;
      return createReceiptSigner(deps.baseUrl(), {
        privateJwk: JSON.parse(row.private_jwk),
        publicJwk: JSON.parse(row.public_jwk),
      });
    })().catch((err) => {
      signer = undefined;
      throw err;
    }));

  return {
    declarations: async (resourceUrl) => ({
      ...paymentIdentifierDeclaration(),
      ...(await siwx.declaration(resourceUrl, deps.clock.now())),
    }),
    signIn: (header, resourceUrl) => siwx.verify(header, resourceUrl, deps.clock.now()),
    receipt: async (resourceUrl, payer) => (await receipts()).receipt(resourceUrl, payer, deps.clock.now()),
    didDocument: async () => (await receipts()).didDocument(),
  };
}

/**
 * In the caller's transaction: grants a sign-in when the wallet paid (x402, a non-zero amount) for the learning
 * within the repeat window and the proof's nonce is unused; the nonce is spent then.
 */
export async function grantSignIn(q: Queryable, proof: SiwxProof, learningId: string, now: number): Promise<boolean> {
  // Unexpired when claimed too, by the clock the claim prunes by (the proof was checked before the transaction).
  if (proof.expiresAt < now) return false;
  if (!(await x402ExtensionsStore.paidSince(q, walletKey(proof.wallet), learningId, now - REPEAT_WINDOW_MS)))
    return false;
  return x402ExtensionsStore.claimSiwxNonce(q, proof.nonce, proof.wallet, proof.expiresAt, now - NONCE_KEPT_MS);
}

/** A payment-identifier and what it binds: the payment's fingerprint (payments/payment-identifier.ts). */
export interface PaymentIdKey {
  id: string;
  fingerprint: string;
}

/** What an id already bought: the unlock's _revenue and settlement transaction. */
export interface PriorPayment {
  revenue: Record<string, unknown>;
  txHash: string | null;
  /** The authorization the id was reserved for (null on ids from before migration 230). */
  nonce: string | null;
}

/** An id reserved by a request that ended (its instance died) without booking or releasing it: the claim it made. */
export interface AbandonedPayment {
  abandoned: { nonce: string };
}

/**
 * The unlock an id bought with this same payment, if any; 409 when the id is bound to another payment, or its
 * payment is still in flight. A reservation made at or before `abandonedBefore` that is still in flight belongs
 * to a request no longer running, as does one its request gave up on: the authorization it claimed is returned, for
 * the caller to settle the matter.
 */
export async function priorPayment(
  q: Queryable,
  key: PaymentIdKey,
  abandonedBefore = Number.NEGATIVE_INFINITY,
): Promise<PriorPayment | AbandonedPayment | undefined> {
  const row = await x402ExtensionsStore.paymentIdentifier(q, key.id);
  if (!row) return undefined;
  if (row.fingerprint !== key.fingerprint) {
    throw new DomainError(
      ERROR_CODES.PAYMENT_IDENTIFIER_CONFLICT,
      'This payment-identifier was used for another payment; choose a new id for a new payment',
    );
  }
  if (row.revenue === null) {
    if (row.nonce !== null && (row.abandoned_at !== null || row.created_at <= abandonedBefore))
      return { abandoned: { nonce: row.nonce } };
    throw paymentInProgress();
  }
  return { revenue: JSON.parse(row.revenue) as Record<string, unknown>, txHash: row.tx_hash, nonce: row.nonce };
}

/** The id's payment no longer buys the learning (older than the repeat window, or it failed to settle). */
export const paymentIdLapsed = () =>
  new DomainError(
    ERROR_CODES.PAYMENT_IDENTIFIER_CONFLICT,
    'The payment under this payment-identifier no longer buys this learning (it is older than ' +
      `${LIMITS.repeatUnlockWindowDays} days, or it failed to settle); choose a new id for a new payment`,
  );

export const paymentInProgress = () =>
  new DomainError(ERROR_CODES.PAYMENT_IN_PROGRESS, 'The payment with this payment-identifier is in progress');

/** In the claim's transaction: binds the id to this payment, or answers what the id bought before (or 409). */
export async function reservePaymentId(
  q: Queryable,
  key: PaymentIdKey,
  r: { learningId: string; payer: string; nonce: string; now: number },
): Promise<PriorPayment | undefined> {
  if (await x402ExtensionsStore.reservePaymentIdentifier(q, { ...key, ...r })) return undefined;
  // Reserved meanwhile by another request, which is running: abandoned ones were settled before this claim.
  const prior = await priorPayment(q, key);
  if (prior && 'abandoned' in prior) throw paymentInProgress();
  return prior;
}

/** In the booking's transaction: records what the id bought. */
export const completePaymentId = (q: Queryable, id: string, revenue: unknown, txHash: string | null) =>
  x402ExtensionsStore.completePaymentIdentifier(q, id, JSON.stringify(revenue), txHash);

/**
 * The request ended without a final settlement outcome (unknown, or refused while its authorization may still be
 * used): the id stays bound to its claim for the next send.
 */
export const abandonPaymentId = (q: Queryable, id: string, now: number) =>
  x402ExtensionsStore.abandonPaymentIdentifier(q, id, now);

/** With the claim's release: the id may be used again. */
export const releasePaymentId = (q: Queryable, id: string) => x402ExtensionsStore.releasePaymentIdentifier(q, id);
