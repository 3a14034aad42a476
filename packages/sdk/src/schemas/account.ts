import { z } from '../zod.js';
import { LIMITS } from '../limits.js';
import {
  DateTime,
  ERROR_CODES,
  Flag,
  Lane,
  LearningCategory,
  LearningStatus,
  OUTCOMES,
  ReviewReason,
} from './common.js';
import { LearningId } from './learning.js';

const usd = z.number().min(0);

export const AccountId = z
  .string()
  .regex(/^acc_[A-Za-z0-9]+$/)
  .openapi('AccountId');

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
    awaiting_settlement: usd.describe(
      'contributor shares of x402 payments not settled on chain yet: not owned, not withdrawable (docs/payments.md)',
    ),
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

/** A learning's fields the screens read, in the order they read them: what a reader is shown. */
export const SCREENED_FIELDS = [
  'title',
  'task_context',
  'body',
  'tags',
  'contributor_agent',
  'related_skills',
  'contributor_key_label',
] as const;

/** One finding of the injection screen: the layer and rule that flagged, and where. */
export const InjectionFlag = z
  .object({
    layer: z
      .enum(['instructions', 'code', 'off_task', 'encoded', 'markup', 'hidden_text', 'semantic'])
      .describe('which layer of the screen flagged'),
    rule: z
      .string()
      .describe('the rule within the layer, e.g. reverse_shell, about_your_output, base64:code.pipe_to_shell'),
    span: z
      .object({
        field: z.enum(SCREENED_FIELDS),
        start: z.number().int().min(0).describe('UTF-16 offset in the field as submitted'),
        end: z.number().int().min(0),
      })
      .nullable()
      .describe('where it matched; null for a whole-text verdict (the semantic screen) or a flag stored before spans'),
    excerpt: z.string().nullable().describe('what matched (at most 200 characters), as submitted'),
  })
  .openapi('InjectionFlag');
export type InjectionFlag = z.infer<typeof InjectionFlag>;

/** One of the caller's held learnings (GET /account/pending). */
export const PendingItem = z
  .object({
    id: LearningId,
    title: z.string(),
    body: z.string().describe('full body: the owner reviews it'),
    category: LearningCategory,
    tags: z.array(z.string()),
    outcome: z.enum(OUTCOMES).nullable().describe('null for drafts without one'),
    task_context: z
      .string()
      .optional()
      .describe('Not named by the contract: the task context, shown to buyers beside the body and in search results'),
    contributor_agent: z
      .string()
      .optional()
      .describe('Not named by the contract: the contributing agent, shown to buyers beside the body'),
    related_skills: z
      .array(z.string())
      .optional()
      .describe('Not named by the contract: the related skill ids, shown to buyers beside the body'),
    contributor_key_label: z
      .string()
      .nullable()
      .optional()
      .describe("Not named by the contract: the submitting API key's name, shown to buyers beside the body"),
    created_at: DateTime,
    status: LearningStatus,
    injection_flags: z
      .array(InjectionFlag)
      .optional()
      .describe('only when the injection screen flagged the item: each layer, rule and span that flagged'),
    possible_duplicate_of: LearningId.optional().describe('only when flagged as a near-duplicate'),
    possible_duplicate_similarity: z.number().min(0).max(1).optional(),
    review_reason: z.array(ReviewReason).describe('why the item is held'),
    lane: Lane,
    sensitivity_findings: z
      .array(z.string())
      .optional()
      .describe(
        'Not named by the contract: finding types of the credentials, personal-data and content-sensitivity screens (e.g. aws_access_key, email); only when found. The stored body holds only the redacted text.',
      ),
    screening_note: z
      .string()
      .optional()
      .describe(
        'Not named by the contract: why only the regex screens ran on this item (the sentence model was busy, slow or not ready when it was submitted); only then',
      ),
  })
  .openapi('PendingItem');
export type PendingItem = z.infer<typeof PendingItem>;

const page = (max: number, dflt: number) => ({
  limit: z.coerce.number().int().min(1).max(max).default(dflt),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
});

/** GET /account/pending. */
export const PendingListQuery = z.object(page(LIMITS.pendingPage.max, LIMITS.pendingPage.default));
export const PendingList = z
  .object({
    account_id: AccountId,
    pending_count: z.number().int().min(0).describe('held items across all pages'),
    limit: z.number().int(),
    offset: z.number().int(),
    learnings: z.array(PendingItem),
  })
  .openapi('PendingList');
export type PendingList = z.infer<typeof PendingList>;

/** GET /account/pending/summary. */
export const PendingSummaryQuery = z.object({
  lane: Lane.optional(),
  flag: Flag.optional(),
  ...page(LIMITS.pendingPage.max, LIMITS.pendingPage.default),
  full: z
    .enum(['0', '1'])
    .optional()
    .describe(`1 attaches bodies: to the explicit ids, or to a page of at most ${LIMITS.pendingSummaryFullMax} rows`),
  ids: z
    .string()
    .max(100 * 40)
    .optional()
    .describe('comma-separated learning ids to list (at most 100)'),
});
export const PendingSummaryRow = z
  .object({
    id: LearningId,
    title: z.string(),
    category: LearningCategory,
    created_at: DateTime,
    lane: Lane,
    flags: z.array(Flag),
    review_reason: z.array(ReviewReason),
    quality_score: z
      .number()
      .min(0)
      .max(1)
      .nullable()
      .describe('self-assessment normalised to 0..1; null when unscored'),
    body: z.string().optional().describe('with full=1 only'),
  })
  .openapi('PendingSummaryRow');
export const PendingSummary = z
  .object({
    account_id: AccountId,
    pending_count: z.number().int().min(0),
    lanes: z.record(Lane, z.number().int().min(0)).describe('held items per lane, over the whole own-pending set'),
    flags: z
      .record(Flag, z.number().int().min(0))
      .describe('held items carrying each flag, over the whole own-pending set'),
    approvable_count: z.number().int().min(0).describe('items approve-clean would publish at the default threshold'),
    default_threshold: z.number().min(0).max(1),
    limit: z.number().int(),
    offset: z.number().int(),
    rows: z.array(PendingSummaryRow),
  })
  .openapi('PendingSummary');
export type PendingSummary = z.infer<typeof PendingSummary>;

/** POST /account/pending/{id}/approve (and the admin queue's approve). */
export const ApproveRequest = z
  .object({
    acknowledge_flags: z
      .boolean()
      .optional()
      .describe(
        'must be true to approve an item a screen flagged (injection, content_sensitivity, near_duplicate, process_advice)',
      ),
  })
  .openapi('ApproveRequest');
export const BulkReviewRequest = z
  .object({
    ids: z.array(LearningId).min(1).max(100, 'at most 100 ids per request'),
    acknowledge_flags: z.boolean().optional().describe('approve only: needed for flagged items'),
  })
  .openapi('BulkReviewRequest');
export const ReviewResult = z
  .object({
    id: z.string(),
    ok: z.boolean(),
    status: LearningStatus.optional().describe('the item status after the call, when ok'),
    review_reason: z
      .array(ReviewReason)
      .optional()
      .describe('reasons still holding it (e.g. forced_review awaits platform review)'),
    code: z.string().optional().describe('why not, when not ok: not_found, conflict, flags_not_acknowledged'),
    error: z.string().optional(),
  })
  .openapi('ReviewResult');
export type ReviewResult = z.infer<typeof ReviewResult>;
export const BulkReviewResponse = z
  .object({ results: z.array(ReviewResult), succeeded: z.number().int(), failed: z.number().int() })
  .openapi('BulkReviewResponse');
export type BulkReviewResponse = z.infer<typeof BulkReviewResponse>;

/** POST /account/pending/approve-clean. */
export const ApproveCleanRequest = z
  .object({
    dry_run: z.boolean().default(true).describe('default true: list what would be approved, change nothing'),
    threshold: z
      .number()
      .min(0)
      .max(1)
      .optional()
      .describe('minimum quality score (0..1); the account auto_publish_threshold by default'),
  })
  .openapi('ApproveCleanRequest');
export const ApproveCleanResponse = z
  .object({
    dry_run: z.boolean(),
    threshold: z.number(),
    selected_count: z.number().int(),
    ids: z.array(LearningId),
    results: z.array(ReviewResult).describe('empty on a dry run'),
  })
  .openapi('ApproveCleanResponse');
export type ApproveCleanResponse = z.infer<typeof ApproveCleanResponse>;
