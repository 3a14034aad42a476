import { LearningFull, LearningId, LIMITS, PaymentReconciliation, PaymentRequired, z } from '@axle/sdk';
import type { Context } from 'koa';
import type { AppDeps } from '../deps.js';
import { addressLimit } from '../http/address-limit.js';
import { type Api, reply } from '../http/route.js';
import { PaymentRequiredError, type UnlockCredential } from '../services/unlock.js';

/** A request that asks for a signature to be verified: a payment (either carrier) or a SIGN-IN-WITH-X proof. */
const provesSomething = (ctx: Context) =>
  !!(ctx.get('x-payment') || ctx.get('payment-signature') || ctx.get('sign-in-with-x'));

/** GET /knowledge/{id}: the full learning, for one unlock credit (X-API-Key) or an x402 payment. */
export function unlockRoutes(api: Api, deps: AppDeps): void {
  const { identity, unlocks, rateLimiter, config } = deps;

  api.route({
    method: 'get',
    path: '/knowledge/{id}',
    operationId: 'unlockLearning',
    summary: 'Unlock a learning',
    description:
      'With X-API-Key one unlock credit is deducted; with X-Payment (x402 v1 or v2 payload) or PAYMENT-SIGNATURE the ' +
      'price is settled; with neither, 402 with the accepts list, the options envelope and X-Payment-Required: true ' +
      '(and the v2 PAYMENT-REQUIRED header). The contributor’s own key unlocks free (owner_recall_free). A repeat ' +
      'unlock by the same buyer within 30 days costs nothing and accrues nothing (accrual_capped). Such free reads are ' +
      'booked once per buyer, learning and 30 days; reading again writes nothing. ' +
      'X-Wallet-Address is ' +
      'an unverified claim to be the contributor: the unlock is paid and the contributor accrual zeroed. ' +
      'x402 extensions: a payment-identifier in the payload makes the payment idempotent (the same payment again ' +
      'answers the same unlock, another payment under the id is 409); SIGN-IN-WITH-X proves a wallet that paid ' +
      'within 30 days, which reads again as a repeat; a settled payment’s PAYMENT-RESPONSE carries a signed receipt ' +
      '(key at /.well-known/did.json). Without an API key, ' +
      `${LIMITS.perAddress.anonymousPaidUnlock.perMinute} requests carrying a payment or SIGN-IN-WITH-X per client ` +
      'address and minute (429 with Retry-After), counted before anything is verified or settled: a refused request ' +
      'spends nothing and its payment stays unused. ' +
      'Per payer wallet, from any addresses (429 with Retry-After, nothing claimed, the authorization unused; only ' +
      'authorizations validly signed by the wallet count): repeats paid with a fresh authorization (served free), ' +
      `${LIMITS.accountWrites.walletRepeatUnlock.perMinute} a minute and ` +
      `${LIMITS.accountWrites.walletRepeatUnlock.perHour} an hour, a limit that never counts nor refuses a paid ` +
      'unlock of a learning the wallet does not hold; and payments the facilitator or the chain refused for the ' +
      'payer’s own reasons (no funds, an authorization judged invalid), ' +
      `${LIMITS.accountWrites.walletRefusedPayment.perMinute} a minute and ` +
      `${LIMITS.accountWrites.walletRefusedPayment.perHour} an hour, counted before the facilitator is asked (payments ` +
      'still settling count) and given back unless refused (a facilitator outage never counts).',
    tags: ['Knowledge'],
    security: ['ApiKey', 'X402Payment'],
    before: [
      identity.optionalKey(),
      addressLimit(rateLimiter, config.trustProxy, {
        name: 'paid-unlock',
        perMinute: LIMITS.perAddress.anonymousPaidUnlock.perMinute,
        anonymousOnly: true,
        only: provesSomething,
      }),
    ],
    params: z.object({ id: LearningId }),
    headers: z.object({
      'X-Payment': z.string().optional(),
      'PAYMENT-SIGNATURE': z.string().optional(),
      'X-Wallet-Address': z.string().optional(),
      'SIGN-IN-WITH-X': z.string().optional(),
    }),
    responses: {
      200: {
        description: 'The learning, with this unlock’s _revenue',
        schema: LearningFull,
        headers: {
          'X-PAYMENT-RESPONSE': 'settlement of an X-Payment (base64 JSON)',
          'PAYMENT-RESPONSE': 'settlement of a PAYMENT-SIGNATURE',
        },
      },
      401: { description: 'Invalid API key' },
      402: {
        description: 'No credential, credits exhausted, or payment refused',
        schema: PaymentRequired,
        headers: {
          'PAYMENT-REQUIRED': 'x402 v2 requirements (base64 JSON)',
          'X-Payment-Required': 'true when no credential was sent',
        },
      },
      403: {
        description:
          "account_suspended: the key's account is suspended (it still reads its own learnings and repeats, spending nothing)",
      },
      404: { description: 'No such learning' },
      429: {
        description:
          'Too many anonymous payments or sign-ins from this address, or repeats paid with fresh authorizations or ' +
          'refused payments by this wallet (Retry-After); nothing charged',
      },
      409: {
        description:
          'CONTRIBUTOR_NOT_ONBOARDED: the contributor has not accepted the current terms; ' +
          'payment_identifier_conflict: the payment-identifier is bound to another payment; ' +
          'payment_in_progress: the payment under this payment-identifier, or an earlier one by the same wallet for ' +
          'this learning, may still settle (Retry-After); this one was not charged',
      },
      502: {
        description:
          'The x402 facilitator could not be reached or failed (5xx, an error of its own); nothing was charged',
      },
    },
    handler: async ({ params }, ctx) => {
      const xPayment = ctx.get('x-payment');
      const signature = ctx.get('payment-signature');
      const credential: UnlockCredential = ctx.state.identity
        ? { kind: 'key', accountId: ctx.state.identity.accountId }
        : xPayment || signature
          ? { kind: 'payment', header: xPayment || signature, carrier: xPayment ? 'X-Payment' : 'PAYMENT-SIGNATURE' }
          : { kind: 'none' };
      try {
        const { learning, paymentResponse } = await unlocks.unlock({
          learningId: params.id,
          credential,
          walletClaim: ctx.get('x-wallet-address') || undefined,
          signInWithX: ctx.get('sign-in-with-x') || undefined,
        });
        return reply(200, learning, paymentResponse ? { [paymentResponse.header]: paymentResponse.value } : {});
      } catch (err) {
        if (!(err instanceof PaymentRequiredError)) throw err;
        return reply(
          402,
          { error: err.message, code: err.code, ...err.details, request_id: ctx.state.requestId },
          { 'PAYMENT-REQUIRED': err.paymentRequiredHeader, ...(err.noCredential && { 'X-Payment-Required': 'true' }) },
        );
      }
    },
  });

  api.route({
    method: 'post',
    path: '/admin/payments/reconcile',
    operationId: 'reconcilePayments',
    summary: 'Reconcile submitted x402 settlements now (admin scope)',
    description:
      'Checks every submitted settlement (up to 100, oldest first) against the chain, as the server does at start ' +
      'and every minute: settled ones credit their contributor shares, failed ones record why.',
    tags: ['Admin'],
    security: ['AdminToken'],
    before: [identity.requireAdmin('admin')],
    responses: {
      200: { description: 'What this pass found', schema: PaymentReconciliation },
      401: { description: 'Missing or invalid admin token' },
      403: { description: 'Read-only admin token' },
    },
    handler: async () => ({ mode: unlocks.settlementMode, ...(await unlocks.reconcilePayments()) }),
  });
}
