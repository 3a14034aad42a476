import { z } from '../zod.js';
import { CreditPackId, DateTime } from './common.js';

const usd = z.number().min(0);

export const CreditPack = z
  .object({
    id: CreditPackId,
    name: z.string(),
    price_usd: z.number().positive(),
    queries: z.number().int().min(0).describe('query credits in the pack; credits never expire'),
    unlocks: z.number().int().min(0).describe('unlock credits in the pack; credits never expire'),
  })
  .openapi('CreditPack');
export type CreditPack = z.infer<typeof CreditPack>;

export const Purchase = z
  .object({
    id: z.string().regex(/^pur_[A-Za-z0-9]+$/),
    pack_id: CreditPackId,
    amount_usd: usd,
    queries_added: z.number().int().min(0),
    unlocks_added: z.number().int().min(0),
    timestamp: DateTime,
  })
  .openapi('Purchase');
export type Purchase = z.infer<typeof Purchase>;

export const LearningEarningsEntry = z
  .object({
    title: z.string(),
    unlocks: z.number().int().min(0),
    gross_usd: usd,
    contributor_usd: usd,
  })
  .describe('Not specified by the contract: per-learning totals a contributor would look for')
  .openapi('LearningEarningsEntry');

/** GET /contributor/{wallet}. */
export const ContributorEarnings = z
  .object({
    wallet: z.string(),
    total_gross_usd: usd,
    total_contributor_usd: usd,
    total_platform_usd: usd,
    total_awaiting_settlement_usd: usd.describe(
      'part of total_contributor_usd from x402 payments not settled on chain yet; never withdrawable until settled',
    ),
    by_learning: z.record(z.string(), LearningEarningsEntry).describe('keyed by learning id'),
    learnings_submitted: z
      .number()
      .int()
      .min(0)
      .describe(
        'publicly visible learnings of this wallet (same predicate as /knowledge/stats; pending, rejected, retracted excluded)',
      ),
    last_updated: DateTime.nullable().describe('last accrual; null when nothing has accrued yet'),
  })
  .openapi('ContributorEarnings');
export type ContributorEarnings = z.infer<typeof ContributorEarnings>;

export const Settlement = z
  .object({
    id: z.string().regex(/^set_[A-Za-z0-9]+$/),
    amount_usd: usd,
    rail: z.enum(['wallet', 'processor']).describe('USDC transfer to the wallet, or card-processor payout'),
    status: z
      .string()
      .describe('processing_timeout is the only value the contract names; others: pending, confirmed, failed'),
    tx_hash: z.string().nullable(),
    created_at: DateTime,
    confirmed_at: DateTime.nullable(),
  })
  .describe('Not specified by the contract: one withdrawal of accrued earnings')
  .openapi('Settlement');

/** GET /contributor/{wallet}/settlements. */
export const ContributorSettlements = z
  .object({
    wallet: z.string(),
    pending_balance: usd,
    total_withdrawn: usd,
    settlements: z.array(Settlement),
  })
  .openapi('ContributorSettlements');

const evmAddress = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'EVM address: 0x followed by 40 hex digits');

/** POST /checkout/session. `pack` is checked by the service so a bad one gets 400 with valid_packs. */
export const CheckoutRequest = z
  .object({ pack: z.string().describe('credit pack id: starter, growth or pro') })
  .openapi('CheckoutRequest');
export const CheckoutSession = z
  .object({ url: z.string().url().describe('hosted checkout page'), session_id: z.string() })
  .openapi('CheckoutSession');

/** POST /webhook/processor. */
export const WebhookResult = z
  .object({
    received: z.boolean(),
    processed: z.boolean().describe('true when the event credited, reversed or reinstated credits now'),
    already_processed: z.boolean().describe('true on a replay of an event already applied'),
    purchase_id: z.string().nullable(),
    outcome: z
      .string()
      .describe(
        'beyond the contract, what the event did: credited, reversed (refund, failed payment or dispute), ' +
          'reinstated (a won dispute gave back what it took), already_reinstated, unknown_dispute, ' +
          'inquiry (a dispute inquiry, no money withdrawn, took nothing), ' +
          'session_failed, not_paid, amount_mismatch, unknown_session, already_credited, unknown_purchase, ignored',
      ),
  })
  .openapi('WebhookResult');

/** GET /account/purchases. */
export const PurchaseList = z
  .object({
    purchases: z.array(Purchase),
    total_spent_usd: usd,
    credit_debt: z
      .object({
        unlocks: z.number().int().nonnegative(),
        amount_usd: usd,
        settled_usd: usd.describe('what later purchases paid of the debt (kept out of their credits)'),
      })
      .describe(
        'beyond the contract: credits of refunded or disputed purchases that were already spent, still owed; ' +
          'a later purchase pays it first',
      ),
  })
  .openapi('PurchaseList');

/** POST /withdraw: the wallet signs EIP-712 {wallet, timestamp} (see docs/payments.md). */
export const WithdrawRequest = z
  .object({
    wallet: evmAddress,
    signature: z.string().regex(/^0x[0-9a-fA-F]+$/),
    timestamp: z.number().int().positive().describe('Unix ms the signature covers; fresh within 5 minutes'),
  })
  .openapi('WithdrawRequest');
/** POST /withdraw/typed-data (not in the contract): what a wallet signs to withdraw, stamped with the server's time. */
export const WithdrawTypedDataRequest = z.object({ wallet: evmAddress }).openapi('WithdrawTypedDataRequest');
export const WithdrawTypedData = z
  .object({
    typed_data: z
      .record(z.string(), z.unknown())
      .describe('EIP-712 Withdrawal {wallet, timestamp} (domain, types, primaryType, message) to sign'),
    timestamp: z.number().int().describe('the message timestamp (Unix ms); send it with the signature'),
    valid_for_seconds: z.number().int().describe('how long the signature stays acceptable'),
  })
  .openapi('WithdrawTypedData');
export const WithdrawResult = z
  .object({
    message: z.string(),
    settlement_id: z.string(),
    amount: usd,
    status: z.string(),
    tx_hash: z.string().nullable().optional(),
  })
  .openapi('WithdrawResult');
export const WithdrawTimeout = z
  .object({
    status: z.literal('processing_timeout'),
    settlement_id: z.string(),
    tx_hash: z.string().nullable(),
    poll_url: z.string(),
  })
  .openapi('WithdrawTimeout');

/** POST /withdraw/processor. */
export const ProcessorWithdrawRequest = z
  .object({ amount_usd: z.number().describe('at least 0.50, whole cents') })
  .openapi('ProcessorWithdrawRequest');
export const ProcessorWithdrawResult = z
  .object({
    message: z.string(),
    payout_id: z.string().nullable().describe('the processor transfer id; null until the outcome is known'),
    settlement_id: z.string(),
    amount: usd,
    status: z.string().describe('confirmed; processing_timeout (202) while the processor has not said'),
    poll_url: z.string().optional(),
  })
  .openapi('ProcessorWithdrawResult');
/** POST /account/payout-account (not in the contract): the hosted onboarding link of the card payout rail. */
export const PayoutOnboarding = z
  .object({ url: z.string().url(), payout_account_id: z.string(), onboarding_complete: z.boolean() })
  .openapi('PayoutOnboarding');

/** GET /admin/settlements. */
export const AdminSettlements = z
  .object({
    platform_wallet: z.string(),
    eth_balance: z.string().describe('not read from chain: this server has no chain RPC, so "unknown"'),
    total_platform_earnings: usd,
  })
  .openapi('AdminSettlements');

/** GET /admin/settlements/unresolved and POST /admin/settlements/{id}/reconcile (not in the contract). */
export const AdminSettlement = z
  .object({
    id: z.string(),
    holder: z.string(),
    rail: z.enum(['wallet', 'processor']),
    amount_usd: usd,
    status: z.string().describe('pending, processing_timeout, confirmed or failed'),
    destination: z.string().nullable(),
    payout_id: z.string().nullable(),
    tx_hash: z.string().nullable(),
    failure_reason: z.string().nullable(),
    created_at: DateTime,
    reconciled_at: DateTime.nullable(),
  })
  .openapi('AdminSettlement');
export type AdminSettlement = z.infer<typeof AdminSettlement>;
export const AdminSettlementList = z.object({ settlements: z.array(AdminSettlement) }).openapi('AdminSettlementList');

/** POST /admin/payments/reconcile: submitted x402 settlements checked against the chain in this pass. */
export const PaymentReconciliation = z
  .object({
    mode: z.enum(['offline', 'chain', 'facilitator']).describe('how this server settles x402 payments'),
    settled: z.number().int().min(0).describe('now settled: their contributor shares were credited'),
    failed: z.number().int().min(0).describe('now failed: their shares will never be credited'),
    submitted: z.number().int().min(0).describe('still unknown on chain; looked at again on the next pass'),
  })
  .openapi('PaymentReconciliation');

/** POST /wallet/challenge and /wallet/verify. */
export const WalletChallengeRequest = z.object({ wallet: evmAddress }).openapi('WalletChallengeRequest');
export const WalletChallenge = z
  .object({
    challenge: z.string(),
    expires_in_seconds: z.number().int().positive(),
    typed_data: z
      .record(z.string(), z.unknown())
      .describe('the EIP-712 typed data to sign (domain, types, primaryType, message)'),
  })
  .openapi('WalletChallenge');
export const WalletVerifyRequest = z
  .object({
    wallet: evmAddress,
    signature: z.string().regex(/^0x[0-9a-fA-F]+$/),
    challenge: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,64}$/)
      .optional()
      .describe(
        "Beyond the contract: the challenge signed (POST /wallet/challenge's `challenge`); without it, the " +
          "wallet's 10 newest unused, unexpired challenges. Naming it keeps challenges someone else requested for " +
          'the wallet from taking its place.',
      ),
  })
  .openapi('WalletVerifyRequest');
export const WalletVerified = z.object({ verified: z.boolean(), wallet: z.string() }).openapi('WalletVerified');

/** POST /account/link-wallet. */
export const LinkWalletRequest = z.object({ wallet: evmAddress }).openapi('LinkWalletRequest');
export const LinkWalletResponse = z
  .object({ message: z.string(), wallet: z.string(), account_id: z.string() })
  .openapi('LinkWalletResponse');
