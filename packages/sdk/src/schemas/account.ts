import { z } from '../zod.js';
import { DateTime, ERROR_CODES, LearningCategory, LearningStatus, Outcome } from './common.js';
import { LearningId } from './learning.js';

const usd = z.number().min(0);

export const AccountId = z.string().regex(/^acc_[A-Za-z0-9]+$/).openapi('AccountId');

/** 403 on money and agency routes until the current terms are accepted. */
export const TermsNotAccepted = z
  .object({
    error: z.string(),
    code: z.literal(ERROR_CODES.TERMS_NOT_ACCEPTED),
    current_tos_version: z.string(),
    how_to_accept: z.string(),
    terms_url: z.string().url(),
  })
  .openapi('TermsNotAccepted');

/** GET /account/earnings. */
export const AccountEarnings = z
  .object({
    account_id: AccountId,
    wallet: z.string().nullable(),
    total_gross_usd: usd,
    total_gross: usd.describe('same amount as total_gross_usd'),
    total_contributor: usd.describe('owned lifetime contributor share; excludes held amounts'),
    total_contributor_gross: usd.describe('owned plus held'),
    unassented_pending: usd.describe('held until terms acceptance; not owned, not withdrawable'),
    pending_balance: usd.describe('withdrawable subset of owned'),
    total_withdrawn: usd,
    withdrawal_count: z.number().int().min(0),
    can_withdraw: z.boolean(),
    message: z.string(),
  })
  .openapi('AccountEarnings');

export const ApiKeySummary = z
  .object({
    id: z.string().regex(/^key_[A-Za-z0-9]+$/),
    name: z.string(),
    created_at: z.number().int().describe('Unix milliseconds'),
  })
  .openapi('ApiKeySummary');

/** GET /account/dashboard. Raw keys and their hashes are never returned. */
export const Dashboard = z
  .object({
    email: z.string().email(),
    wallet: z.string().nullable(),
    api_keys: z.array(ApiKeySummary),
  })
  .openapi('Dashboard');

/** One of the caller's held learnings (GET /account/pending). */
export const PendingItem = z
  .object({
    id: LearningId,
    title: z.string(),
    body: z.string().describe('full body: the owner reviews it'),
    category: LearningCategory,
    tags: z.array(z.string()),
    outcome: Outcome.nullable(),
    created_at: DateTime,
    status: LearningStatus,
    injection_flags: z.array(z.string()).optional().describe('only when the injection screen flagged the item'),
    possible_duplicate_of: LearningId.optional().describe('only when flagged as a near-duplicate'),
    possible_duplicate_similarity: z.number().min(0).max(1).optional(),
  })
  .openapi('PendingItem');
