import {
  AccountEarnings,
  AdminSettlement,
  AdminSettlementList,
  AdminSettlements,
  CheckoutRequest,
  CheckoutSession,
  ContributorSettlements,
  LinkWalletRequest,
  LinkWalletResponse,
  PayoutOnboarding,
  ProcessorWithdrawRequest,
  ProcessorWithdrawResult,
  PurchaseList,
  WalletChallenge,
  WalletChallengeRequest,
  WalletVerified,
  WalletVerifyRequest,
  WebhookResult,
  WithdrawRequest,
  WithdrawResult,
  WithdrawTimeout,
  WithdrawTypedData,
  WithdrawTypedDataRequest,
  ERROR_CODES,
  LIMITS,
  z,
} from '@axle/sdk';
import { DomainError } from '../domain/errors.js';
import type { Middleware } from 'koa';
import type { AppDeps } from '../deps.js';
import { addressLimit } from '../http/address-limit.js';
import { clientIp } from '../http/client-ip.js';
import { type Api, reply } from '../http/route.js';
import { requireTermsAccepted } from '../http/terms-gate.js';

export const PROCESSOR_WEBHOOK_PATH = '/webhook/processor';

const WalletParam = z.object({
  wallet: z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'EVM address: 0x followed by 40 hex digits'),
});
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const toAdminSettlement = (s: Awaited<ReturnType<AppDeps['payouts']['reconcile']>>): AdminSettlement => ({
  id: s.id,
  holder: s.holder,
  rail: s.rail,
  amount_usd: s.amount_micro / 1_000_000,
  status: s.status,
  destination: s.destination,
  payout_id: s.payout_id,
  tx_hash: s.tx_hash,
  failure_reason: s.failure_reason,
  created_at: new Date(s.created_at).toISOString(),
  reconciled_at: iso(s.reconciled_at),
});
const accountOf = (state: { identity?: { accountId: string } }): string => state.identity!.accountId;

/** Credits and card checkout, wallets, earnings, withdrawals and their admin view (spec: Endpoints / Money). */
export function moneyRoutes(api: Api, deps: AppDeps): void {
  const { identity, checkout, wallets, earnings, withdrawals, payouts, terms, config, rateLimiter } = deps;
  const withdrawalsOpen: Middleware = async (_ctx, next) => {
    withdrawals.assertOpen();
    return next();
  };

  api.route({
    method: 'post',
    path: '/checkout/session',
    operationId: 'createCheckoutSession',
    summary: 'Start a card checkout for a credit pack',
    description:
      'Packs: starter $10 (100 unlocks, 1,000 queries), growth $25 (300, 3,000), pro $100 (1,500, 15,000); ' +
      'credits never expire.',
    tags: ['Money'],
    security: ['BearerJWT'],
    before: [identity.requireJwt(), identity.requireActiveAccount()],
    body: CheckoutRequest,
    responses: {
      200: { description: 'Hosted checkout URL and session id', schema: CheckoutSession },
      400: { description: 'Unknown pack: error and valid_packs (CreditPack[])' },
      401: { description: 'Missing or invalid session token' },
      403: { description: 'Account suspended (account_suspended)' },
      502: { description: 'The card processor could not be reached' },
      503: { description: 'checkout provider not configured' },
    },
    handler: ({ body }, ctx) => checkout.createSession(accountOf(ctx.state), body.pack),
  });

  api.route({
    method: 'post',
    path: PROCESSOR_WEBHOOK_PATH,
    operationId: 'receiveProcessorEvent',
    summary: 'Card processor events (signed)',
    description:
      'checkout.session.completed (or async_payment_succeeded) creates the Purchase and adds its credits, once, ' +
      'and only for a session this server created, paid, at its recorded amount and currency; anything else is ' +
      'recorded and answered 200 without credits. charge.refunded, charge.dispute.created of a chargeback, ' +
      'charge.dispute.funds_withdrawn (once per dispute) and checkout.session.async_payment_failed take the ' +
      'credits back (spent ones become a debt); a dispute inquiry (status warning_*) takes nothing; ' +
      'charge.dispute.funds_reinstated of a won dispute recorded for the same payment gives back what it took ' +
      '(the debt it made first), once. ' +
      'A replay answers already_processed: true; a malformed event is 400.',
    tags: ['Money'],
    headers: z.object({ 'Stripe-Signature': z.string() }),
    responses: {
      200: { description: 'Event received', schema: WebhookResult },
      400: { description: 'Invalid signature or malformed event' },
      503: { description: 'checkout provider not configured' },
    },
    handler: (_input, ctx) =>
      checkout.handleEvent((ctx.state.rawBody as Buffer | undefined) ?? Buffer.alloc(0), ctx.get('stripe-signature')),
  });

  api.route({
    method: 'get',
    path: '/account/purchases',
    operationId: 'listPurchases',
    summary: 'Your credit pack purchases',
    tags: ['Account'],
    security: ['BearerJWT'],
    before: [identity.requireJwt()],
    responses: {
      200: { description: 'Purchases, newest first, and the total spent', schema: PurchaseList },
      401: { description: 'Missing or invalid session token' },
    },
    handler: (_input, ctx) => checkout.purchases(accountOf(ctx.state)),
  });

  api.route({
    method: 'get',
    path: '/account/earnings',
    operationId: 'getAccountEarnings',
    summary: 'Your earnings breakdown',
    description:
      'Accepts a session token or, beyond the contract, a key with the account scope ' +
      '(so agents and the MCP tools can read it).',
    tags: ['Account'],
    security: ['BearerJWT', 'ApiKey'],
    before: [identity.requireJwtOrKey()],
    responses: {
      200: { description: 'Account earnings', schema: AccountEarnings },
      401: { description: 'Missing or invalid credentials' },
      404: { description: 'Account not found' },
    },
    handler: (_input, ctx) => earnings.account(accountOf(ctx.state)),
  });

  api.route({
    method: 'post',
    path: '/wallet/challenge',
    operationId: 'createWalletChallenge',
    summary: 'Get a challenge for the wallet to sign (EIP-712)',
    tags: ['Account'],
    body: WalletChallengeRequest,
    responses: {
      200: { description: 'The challenge, its lifetime and the typed data to sign', schema: WalletChallenge },
      429: { description: 'Too many challenges for this wallet or from this address' },
    },
    handler: ({ body }, ctx) => wallets.challenge(body.wallet, clientIp(ctx, config.trustProxy)),
  });

  api.route({
    method: 'post',
    path: '/wallet/verify',
    operationId: 'verifyWallet',
    summary: 'Prove control of a wallet with the signed challenge',
    description:
      'Each challenge is single-use: an expired, mismatched or reused challenge is refused (400). Beyond the ' +
      "contract: sent with an account's session token or API key, the proof is made for that account, the only " +
      'one that may then link the wallet (POST /account/link-wallet); one sent without keeps it. ' +
      `${LIMITS.perAddress.walletVerify.perMinute} requests per client address and minute (429 with Retry-After), ` +
      'counted before the signature is checked.',
    tags: ['Account'],
    before: [
      identity.optionalJwtOrKey(),
      identity.activeAccountIfAny(),
      addressLimit(rateLimiter, config.trustProxy, {
        name: 'wallet-verify',
        perMinute: LIMITS.perAddress.walletVerify.perMinute,
      }),
    ],
    body: WalletVerifyRequest,
    responses: {
      200: { description: 'Verified', schema: WalletVerified },
      400: { description: 'No, expired or used challenge; wrong signature' },
      401: { description: 'An invalid session token or API key was sent' },
      403: { description: 'The credential sent is of a suspended account' },
      429: { description: 'Too many verifications from this address (Retry-After)' },
    },
    handler: ({ body }, ctx) =>
      wallets.verify(body.wallet, body.signature as `0x${string}`, ctx.state.identity?.accountId, body.challenge),
  });

  api.route({
    method: 'post',
    path: '/account/link-wallet',
    operationId: 'linkWallet',
    summary: 'Link a verified wallet for payouts',
    description:
      'Requires accepted terms, a wallet verified through /wallet/challenge and /wallet/verify, ' +
      'not linked to another account, ' +
      'an account without a wallet, and a clean sanctions screen. ' +
      'Earnings held for the wallet move to the account. Accepts a ' +
      'session token or, beyond the contract, a key with the payout scope. Per account, ' +
      `${LIMITS.accountWrites.walletLink.perMinute} requests a minute and ${LIMITS.accountWrites.walletLink.perHour} ` +
      'an hour that get as far as the sanctions screen (429 with Retry-After; a link refused before it is not counted).',
    tags: ['Account'],
    security: ['BearerJWT', 'ApiKey'],
    before: [identity.requireJwtOrKey(), identity.requireActiveAccount(), requireTermsAccepted(terms)],
    body: LinkWalletRequest,
    responses: {
      200: { description: 'Linked', schema: LinkWalletResponse },
      400: { description: 'Bad, unverified or already linked wallet; account already has one' },
      401: { description: 'Missing or invalid credentials' },
      403: { description: 'TERMS_NOT_ACCEPTED, account suspended, or sanctions block' },
      404: { description: 'Account not found' },
      429: { description: 'Per-account link limit (Retry-After)' },
      503: { description: 'sanctions screening unavailable' },
    },
    handler: ({ body }, ctx) => wallets.link(accountOf(ctx.state), body.wallet),
  });

  api.route({
    method: 'get',
    path: '/contributor/{wallet}/settlements',
    operationId: 'getContributorSettlements',
    summary: 'A contributor wallet’s withdrawals and pending balance',
    description: 'Also the poll_url of an unresolved withdrawal.',
    tags: ['Knowledge'],
    params: WalletParam,
    responses: {
      200: { description: 'Contributor settlements', schema: ContributorSettlements },
      400: { description: 'Not an EVM address' },
    },
    handler: ({ params }) => earnings.settlements(params.wallet),
  });

  api.route({
    method: 'post',
    path: '/withdraw',
    operationId: 'withdrawToWallet',
    summary: 'Withdraw the pending balance to the linked wallet',
    description:
      'The wallet signs EIP-712 Withdrawal {wallet, timestamp} (domain Axle, version 1, chain 8453); ' +
      'the timestamp must be within ' +
      '5 minutes. Each signature is single-use: once it has opened a settlement, sending it again is ' +
      '409 WITHDRAWAL_SIGNATURE_USED and moves nothing (a refused request leaves it unspent). ' +
      '503 withdraw_paused_noncustodial_migration unless custodial withdrawals are enabled. ' +
      `${LIMITS.perAddress.walletWithdraw.perMinute} requests per client address and minute (429 with Retry-After), ` +
      'counted before the signature is verified or the wallet screened.',
    tags: ['Money'],
    body: WithdrawRequest,
    responses: {
      200: { description: 'Paid out', schema: WithdrawResult },
      202: {
        description: 'Broadcast, confirmation timed out: balance debited, poll poll_url, do not retry',
        schema: WithdrawTimeout,
      },
      400: { description: 'Stale timestamp or nothing to withdraw' },
      403: { description: 'Bad signature, TERMS_NOT_ACCEPTED, account suspended or sanctions block' },
      404: { description: 'No account has linked this wallet' },
      409: {
        description:
          'WITHDRAWAL_IN_FLIGHT with settlement_id, settlement_status, poll_url; ' +
          'or WITHDRAWAL_SIGNATURE_USED (a replay)',
      },
      429: { description: 'Too many withdrawal requests from this address (Retry-After)' },
      503: { description: 'Withdrawals paused, or sanctions screening unavailable' },
    },
    // The pause answers before the body is judged, as on the processor rail.
    before: [
      withdrawalsOpen,
      addressLimit(rateLimiter, config.trustProxy, {
        name: 'wallet-withdraw',
        perMinute: LIMITS.perAddress.walletWithdraw.perMinute,
      }),
    ],
    handler: async ({ body }) => {
      const r = await withdrawals.viaWallet({
        wallet: body.wallet,
        signature: body.signature as `0x${string}`,
        timestamp: body.timestamp,
      });
      if (r.status === 'processing_timeout') return reply(202, r);
      return {
        message: 'Withdrawal settled',
        settlement_id: r.settlement_id,
        amount: r.amount,
        status: r.status,
        tx_hash: r.tx_hash,
      };
    },
  });

  api.route({
    method: 'post',
    path: '/withdraw/typed-data',
    operationId: 'withdrawTypedData',
    summary: 'The EIP-712 typed data a wallet signs for POST /withdraw',
    description:
      'Beyond the contract: Withdrawal {wallet, timestamp} in the domain {name: Axle, version: 1, chainId: 8453}, ' +
      'stamped with this server’s clock, so a wallet signs exactly what POST /withdraw verifies. ' +
      '503 withdraw_paused_noncustodial_migration unless custodial withdrawals are enabled.',
    tags: ['Money'],
    before: [withdrawalsOpen],
    body: WithdrawTypedDataRequest,
    responses: {
      200: { description: 'Typed data to sign', schema: WithdrawTypedData },
      400: { description: 'Not an EVM address' },
      503: { description: 'Withdrawals paused' },
    },
    handler: ({ body }) => withdrawals.typedData(body.wallet),
  });

  api.route({
    method: 'post',
    path: '/withdraw/processor',
    operationId: 'withdrawToPayoutAccount',
    summary: 'Withdraw to your card-processor payout account',
    description:
      'At least $0.50. Link the payout account first with POST /account/payout-account ' +
      'and finish its hosted onboarding. A session token or a key with the payout scope. The settlement id is ' +
      'the idempotency key of the one processor transfer, so the payout is made at most once. Send an ' +
      'Idempotency-Key header to retry safely: a retry with the same key answers the first request’s payout as it ' +
      'now stands (409 when it named another amount).',
    tags: ['Money'],
    security: ['BearerJWT', 'ApiKey'],
    before: [identity.requireJwtOrKey(), withdrawalsOpen, identity.requireActiveAccount(), requireTermsAccepted(terms)],
    body: ProcessorWithdrawRequest,
    headers: z.object({ 'Idempotency-Key': z.string().max(255).optional() }),
    responses: {
      200: { description: 'Paid out', schema: ProcessorWithdrawResult },
      202: {
        description:
          'processing_timeout: the provider did not answer whether it paid; the balance stays debited and the ' +
          'payout is reconciled with the provider (exactly once). Poll poll_url, do not retry',
        schema: ProcessorWithdrawResult,
      },
      400: {
        description:
          'no payout account linked, onboarding incomplete, invalid amount, below minimum, insufficient balance',
      },
      401: { description: 'Missing or invalid credentials' },
      403: { description: 'TERMS_NOT_ACCEPTED, account suspended, or sanctions block on the linked wallet' },
      404: { description: 'Account not found' },
      409: { description: 'WITHDRAWAL_IN_FLIGHT, or an Idempotency-Key used for another amount' },
      429: { description: 'More than 10 card withdrawal requests a minute or 30 an hour' },
      502: { description: 'The payout provider refused the payout; nothing was withdrawn' },
      503: { description: 'Withdrawals paused, payout provider not configured, or sanctions screening unavailable' },
    },
    handler: async ({ body }, ctx) => {
      const r = await withdrawals.viaProcessor(
        accountOf(ctx.state),
        body.amount_usd,
        ctx.get('idempotency-key') || undefined,
      );
      if (r.status !== 'confirmed')
        return reply(202, {
          message: 'The payout provider has not confirmed the payout yet: do not retry, poll poll_url',
          ...r,
        });
      return { message: 'Payout sent', ...r };
    },
  });

  api.route({
    method: 'post',
    path: '/account/payout-account',
    operationId: 'createPayoutAccount',
    summary: 'Link a card-processor payout account (hosted onboarding)',
    description:
      'Not in the contract: creates the payout account once and returns its hosted onboarding link. ' +
      'A session token or a key with the payout scope.',
    tags: ['Money'],
    security: ['BearerJWT', 'ApiKey'],
    before: [identity.requireJwtOrKey(), identity.requireActiveAccount(), requireTermsAccepted(terms)],
    responses: {
      200: { description: 'Onboarding link', schema: PayoutOnboarding },
      401: { description: 'Missing or invalid credentials' },
      403: { description: 'TERMS_NOT_ACCEPTED or account suspended' },
      429: { description: 'More than 10 onboarding links an hour' },
      502: { description: 'The card processor could not be reached' },
      503: { description: 'payout provider not configured' },
    },
    handler: (_input, ctx) => withdrawals.payoutOnboarding(accountOf(ctx.state)),
  });

  api.route({
    method: 'get',
    path: '/admin/settlements',
    operationId: 'getAdminSettlements',
    summary: 'Platform wallet and earnings',
    tags: ['Admin'],
    security: ['AdminToken'],
    before: [identity.requireAdmin('read')],
    responses: {
      200: { description: 'Platform settlement view', schema: AdminSettlements },
      401: { description: 'Missing or invalid admin token' },
    },
    handler: async () => ({
      platform_wallet: config.routerAddress ?? config.payTo,
      eth_balance: 'unknown',
      total_platform_earnings: (await withdrawals.totalPlatformMicro()) / 1_000_000,
    }),
  });

  const SettlementParam = z.object({ id: z.string().regex(/^set_[A-Za-z0-9]+$/, 'a settlement id (set_…)') });
  api.route({
    method: 'get',
    path: '/admin/settlements/unresolved',
    operationId: 'listUnresolvedSettlements',
    summary: 'Withdrawals whose payout has not been confirmed or failed yet',
    description:
      'Not in the contract: pending and processing_timeout settlements, oldest first (at most 200). ' +
      'They are reconciled at start and on a schedule; POST /admin/settlements/{id}/reconcile asks now.',
    tags: ['Admin'],
    security: ['AdminToken'],
    before: [identity.requireAdmin('read')],
    responses: {
      200: { description: 'Unresolved settlements', schema: AdminSettlementList },
      401: { description: 'Missing or invalid admin token' },
    },
    handler: async () => ({ settlements: (await payouts.unresolved(200)).map(toAdminSettlement) }),
  });

  api.route({
    method: 'post',
    path: '/admin/settlements/{id}/reconcile',
    operationId: 'reconcileSettlement',
    summary: 'Resolve one stuck withdrawal by asking the payout provider',
    description:
      'Not in the contract: lists the processor transfers of the settlement (its transfer_group); one found ' +
      'confirms it, none sends it under its own idempotency key, a refusal fails it and returns the amount. ' +
      'Still processing_timeout when the provider does not answer.',
    tags: ['Admin'],
    security: ['AdminToken'],
    before: [identity.requireAdmin('admin')],
    params: SettlementParam,
    responses: {
      200: { description: 'The settlement as it now stands', schema: AdminSettlement },
      401: { description: 'Missing or invalid admin token' },
      403: { description: 'The read token' },
      404: { description: 'No such settlement' },
    },
    handler: async ({ params }) => toAdminSettlement(await payouts.reconcile(params.id)),
  });

  api.route({
    method: 'post',
    path: '/admin/settle',
    operationId: 'adminSettle',
    summary: 'Batch settlement (not implemented)',
    tags: ['Admin'],
    security: ['AdminToken'],
    before: [identity.requireAdmin('admin')],
    responses: {
      501: { description: 'Not implemented' },
      401: { description: 'Missing or invalid admin token' },
      403: { description: 'Read-only admin token (insufficient_scope)' },
    },
    handler: () => {
      throw new DomainError(ERROR_CODES.NOT_IMPLEMENTED, 'Batch settlement is not implemented');
    },
  });
}
