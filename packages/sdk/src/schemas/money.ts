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
    by_learning: z.record(z.string(), LearningEarningsEntry).describe('keyed by learning id'),
    learnings_submitted: z
      .number()
      .int()
      .min(0)
      .describe('publicly visible learnings of this wallet (same predicate as /knowledge/stats; pending, rejected, retracted excluded)'),
    last_updated: DateTime.nullable().describe('last accrual; null when nothing has accrued yet'),
  })
  .openapi('ContributorEarnings');
export type ContributorEarnings = z.infer<typeof ContributorEarnings>;

export const Settlement = z
  .object({
    id: z.string().regex(/^set_[A-Za-z0-9]+$/),
    amount_usd: usd,
    rail: z.enum(['wallet', 'processor']).describe('USDC transfer to the wallet, or card-processor payout'),
    status: z.string().describe('processing_timeout is the only value the contract names; others: pending, confirmed, failed'),
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
