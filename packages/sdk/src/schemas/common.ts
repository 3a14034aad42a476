import { z } from '../zod.js';

/** Skills taxonomy (8 categories). */
export const CATEGORIES = [
  'data-processing',
  'web-interaction',
  'code-execution',
  'communication',
  'storage-state',
  'content-generation',
  'payment-financial',
  'monitoring',
] as const;
/** Learnings are technical-only: `communication` and `content-generation` are retired for them. */
export const LEARNING_CATEGORIES = [
  'data-processing',
  'web-interaction',
  'code-execution',
  'storage-state',
  'payment-financial',
  'monitoring',
] as const;
export const OUTCOMES = ['success', 'partial', 'failure', 'workaround'] as const;
export const SKILL_TYPES = ['api', 'mcp_server'] as const;
export const VERDICTS = ['strong_buy', 'recommended', 'consider', 'expensive'] as const;
export const SUBMISSION_CHANNELS = ['direct', 'extraction'] as const;
export const CREDIT_PACK_IDS = ['starter', 'growth', 'pro'] as const;
export const EXTRACTION_SOURCE_TYPES = ['claude-code', 'openclaw'] as const;
export const EXTRACTION_MODES = ['off', 'automatic', 'manual'] as const;
export const CONSENT_ACTIONS = ['grant', 'revoke'] as const;
export const LANES = ['ready_to_publish', 'needs_score', 'needs_your_eyes'] as const;
export const FLAGS = ['injection', 'content_sensitivity', 'near_duplicate', 'process_advice'] as const;
export const LEARNING_STATUSES = ['approved', 'pending_review', 'rejected', 'retracted'] as const;
export const REVIEW_REASONS = [
  'content_sensitivity',
  'injection',
  'near_duplicate',
  'forced_review',
  'awaiting_quality',
  'process_advice_screen',
  'below_quality_floor',
  'standing_consent_off',
  'below_auto_publish_threshold',
  'sanitized_resubmission',
] as const;

export const Category = z.enum(CATEGORIES).openapi('Category');
export const LearningCategory = z.enum(LEARNING_CATEGORIES).openapi('LearningCategory');
export const Outcome = z.enum(OUTCOMES).openapi('Outcome');
export const SkillType = z.enum(SKILL_TYPES).openapi('SkillType');
export const Verdict = z.enum(VERDICTS).openapi('Verdict');
export const SubmissionChannel = z.enum(SUBMISSION_CHANNELS).openapi('SubmissionChannel');
export const CreditPackId = z.enum(CREDIT_PACK_IDS).openapi('CreditPackId');
export const ExtractionSourceType = z.enum(EXTRACTION_SOURCE_TYPES).openapi('ExtractionSourceType');
export const ExtractionMode = z.enum(EXTRACTION_MODES).openapi('AutonomousExtractionMode');
export const ConsentAction = z.enum(CONSENT_ACTIONS).openapi('ConsentAction');
export const Lane = z.enum(LANES).openapi('Lane');
export const Flag = z.enum(FLAGS).openapi('Flag');
export const LearningStatus = z.enum(LEARNING_STATUSES).openapi('LearningStatus');
export const ReviewReason = z.enum(REVIEW_REASONS).openapi('ReviewReason');

/**
 * A request string that reaches the store: U+0000 is refused (400) up front, since PostgreSQL text cannot hold it and
 * SQLite would keep a value no other instance could. Wraps the field's own string schema.
 */
export function withoutNul<S extends z.ZodString>(schema: S): S {
  return schema.refine((s) => !s.includes('\u0000'), 'must not contain U+0000') as S;
}

export const DateTime = z.string().datetime({ offset: true }).openapi({ format: 'date-time' });

/** Base error body: every non-2xx JSON response carries at least `error`. */
export const ErrorBody = z
  .object({
    error: z.string(),
    code: z.string().optional(),
    message: z.string().optional(),
  })
  .passthrough()
  .openapi('Error');
export type ErrorBody = z.infer<typeof ErrorBody>;

/** Error codes the spec names, plus the ones this implementation adds (documented in the README). */
export const ERROR_CODES = {
  VALIDATION: 'validation_error',
  NOT_FOUND: 'not_found',
  METHOD_NOT_ALLOWED: 'method_not_allowed',
  PAYLOAD_TOO_LARGE: 'payload_too_large',
  MALFORMED_JSON: 'malformed_json',
  NESTED_JSON: 'nested_json',
  /** 400: a JSON object names the same key twice (which value counts would be the parser's guess). */
  DUPLICATE_JSON_KEY: 'duplicate_json_key',
  UNSUPPORTED_MEDIA_TYPE: 'unsupported_media_type',
  INTERNAL: 'internal_error',
  CATEGORY_OUT_OF_SCOPE: 'CATEGORY_OUT_OF_SCOPE',
  AFFIRMATION_REQUIRED: 'AFFIRMATION_REQUIRED',
  TERMS_NOT_ACCEPTED: 'TERMS_NOT_ACCEPTED',
  CONTRIBUTOR_NOT_ONBOARDED: 'CONTRIBUTOR_NOT_ONBOARDED',
  WITHDRAWAL_IN_FLIGHT: 'WITHDRAWAL_IN_FLIGHT',
  WITHDRAWAL_SIGNATURE_USED: 'WITHDRAWAL_SIGNATURE_USED',
  WITHDRAW_PAUSED: 'withdraw_paused_noncustodial_migration',
  EXTRACTION_CLIENT_SIDE: 'extraction_client_side',
  INVALID_API_KEY: 'invalid_api_key',
  UNAUTHORIZED: 'unauthorized',
  FORBIDDEN: 'forbidden',
  INSUFFICIENT_SCOPE: 'insufficient_scope',
  ACCOUNT_SUSPENDED: 'account_suspended',
  MAIL_UNAVAILABLE: 'mail_unavailable',
  RATE_LIMITED: 'rate_limited',
  CONFLICT: 'conflict',
  PAYMENT_REQUIRED: 'payment_required',
  CREDITS_EXHAUSTED: 'credits_exhausted',
  PAYMENT_INVALID: 'payment_invalid',
  /** 409: an x402 payment-identifier already bound to another payment (payer, learning or recipient). */
  PAYMENT_IDENTIFIER_CONFLICT: 'payment_identifier_conflict',
  /** 409: the payment with this x402 payment-identifier is still being settled; retry shortly. */
  PAYMENT_IN_PROGRESS: 'payment_in_progress',
  SANCTIONS_BLOCKED: 'sanctions_blocked',
  SANCTIONS_UNAVAILABLE: 'sanctions_unavailable',
  PROVIDER_NOT_CONFIGURED: 'provider_not_configured',
  PROVIDER_UNAVAILABLE: 'provider_unavailable',
  NOT_IMPLEMENTED: 'not_implemented',
  DUPLICATE_LEARNING: 'duplicate_learning',
  NEAR_DUPLICATE_LEARNING: 'near_duplicate_learning',
  RETRACTION_WINDOW_EXPIRED: 'retraction_window_expired',
  FLAGS_NOT_ACKNOWLEDGED: 'flags_not_acknowledged',
  OPENCLAW_NOT_CONFIGURED: 'openclaw_not_configured',
  /** Only in the server's access log (status 499): the client closed the connection before the answer. */
  CLIENT_CLOSED_REQUEST: 'client_closed_request',
  /** 409: the account holds as many live API keys as it may. */
  API_KEY_LIMIT: 'api_key_limit',
  /** 431: the request's header block is larger than the server reads. */
  HEADERS_TOO_LARGE: 'headers_too_large',
  /** 408: the request's headers or body did not arrive within the connection timeouts. */
  REQUEST_TIMEOUT: 'request_timeout',
  /** 400: bytes that do not parse as an HTTP request. */
  MALFORMED_REQUEST: 'malformed_request',
  /** 503: the shared database (PostgreSQL) did not give a connection in time or is unreachable. */
  DATABASE_UNAVAILABLE: 'database_unavailable',
} as const;
export type ErrorCode = (typeof ERROR_CODES)[keyof typeof ERROR_CODES];
