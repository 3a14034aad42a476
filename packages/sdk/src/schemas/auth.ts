import { LIMITS } from '../limits.js';
import { displayString } from '../display-text.js';
import { z } from '../zod.js';
import { AccountId } from './account.js';

/**
 * What an API key may do; ROUTE_SCOPES says which scope each route needs. A key without it gets 403
 * `insufficient_scope`. `payout` moves money (card withdrawals, the payout account, wallet linking) and is never
 * implied: new keys get DEFAULT_KEY_SCOPES unless the request names scopes, and no existing key gained it.
 */
export const API_KEY_SCOPES = ['search', 'contribute', 'account', 'payout'] as const;
/** The scopes a key gets when its creation names none (device sign-in keys too): all but `payout`. */
export const DEFAULT_KEY_SCOPES = ['search', 'contribute', 'account'] as const;
export const ApiKeyScope = z.enum(API_KEY_SCOPES).openapi('ApiKeyScope', {
  description:
    'search: search and unlock (also by credit) and rating. contribute: POST /learn, retraction, accept-terms, ' +
    'reviewing your own pending learnings. account: account read and settings routes. payout: moving money ' +
    '(POST /withdraw/processor, POST /account/payout-account, POST /account/link-wallet); never granted by ' +
    'default. A session token (JWT) carries every scope. The full matrix: docs/auth.md.',
});
export type ApiKeyScope = z.infer<typeof ApiKeyScope>;

/**
 * The scope matrix, written once: every route ("METHOD /path", OpenAPI style) -> the API key scopes that allow
 * it (any one is enough). `public`: no credential needed, a key is not asked for its scopes; `[]`: no API key is
 * accepted (session token or admin token only). The server enforces it from this table and a test sends every
 * route every scope.
 */
export const ROUTE_SCOPES = {
  'GET /': 'public',
  'GET /health': 'public',
  'GET /categories': 'public',
  'GET /stats': 'public',
  'GET /terms': 'public',
  'GET /openapi.json': 'public',
  'GET /.well-known/agent.json': 'public',
  'GET /.well-known/agent-card.json': 'public',
  'POST /a2a': 'public',
  'GET /a2a/rest/{resource}': 'public',
  'POST /a2a/rest/{resource}': 'public',
  'GET /a2a/rest/{resource}/{id}': 'public',
  'POST /a2a/rest/{resource}/{id}': 'public',
  'GET /.well-known/did.json': 'public',
  'GET /knowledge/stats': 'public',
  'GET /contributor/{wallet}': 'public',
  'GET /contributor/{wallet}/settlements': 'public',
  'POST /auth/magic-link': 'public',
  'GET /auth/verify': 'public',
  'POST /auth/verify': 'public',
  'POST /auth/device/code': 'public',
  'POST /auth/device/token': 'public',
  'GET /device': 'public',
  'POST /device': 'public',
  'POST /device/sign-in': 'public',
  'POST /device/sign-out': 'public',
  'POST /extract': 'public',
  'POST /wallet/challenge': 'public',
  'POST /wallet/verify': 'public',
  'POST /withdraw': 'public',
  'POST /withdraw/typed-data': 'public',
  'POST /webhook/processor': 'public',
  'POST /discover': ['search'],
  'GET /skill/{id}': ['search'],
  'POST /knowledge': ['search'],
  'GET /knowledge/{id}': ['search'],
  'POST /knowledge/{id}/rate': ['search'],
  'POST /mcp': ['search', 'contribute', 'account', 'payout'],
  'POST /learn': ['contribute'],
  'DELETE /learn/{id}': ['contribute'],
  'POST /account/accept-terms': ['contribute'],
  'GET /account/pending': ['contribute'],
  'GET /account/pending/summary': ['contribute'],
  'POST /account/pending/approve-clean': ['contribute'],
  'POST /account/pending/approve': ['contribute'],
  'POST /account/pending/reject': ['contribute'],
  'POST /account/pending/{id}/approve': ['contribute'],
  'POST /account/pending/{id}/reject': ['contribute'],
  'GET /account/api-keys': ['account'],
  'GET /account/terms-status': ['account'],
  'GET /account/settings': ['account'],
  'PATCH /account/settings': ['account'],
  'POST /extract/consent': ['account'],
  'GET /account/earnings': ['account'],
  'POST /account/link-wallet': ['payout'],
  'POST /account/payout-account': ['payout'],
  'POST /withdraw/processor': ['payout'],
  'POST /account/api-keys': [],
  'DELETE /account/api-keys/{id}': [],
  // A key giving itself up: any scope may.
  'DELETE /account/api-key': ['search', 'contribute', 'account', 'payout'],
  'GET /account/dashboard': [],
  'GET /account/purchases': [],
  'POST /checkout/session': [],
  'GET /admin/accounts/{id}': [],
  'POST /admin/accounts/{id}/suspend': [],
  'POST /admin/accounts/{id}/unsuspend': [],
  'GET /admin/audit/verify': [],
  'GET /admin/review': [],
  'POST /admin/review/{id}/approve': [],
  'POST /admin/review/{id}/reject': [],
  'GET /admin/settlements': [],
  'GET /admin/settlements/unresolved': [],
  'POST /admin/settlements/{id}/reconcile': [],
  'POST /admin/settle': [],
  'POST /admin/payments/reconcile': [],
  'GET /openclaw/status': [],
  'POST /openclaw/trigger': [],
  'POST /openclaw/config': [],
  'GET /openclaw/state': [],
} as const satisfies Record<string, 'public' | readonly ApiKeyScope[]>;
export type RouteKey = keyof typeof ROUTE_SCOPES;

export const ApiKeyId = z
  .string()
  .regex(/^key_[A-Za-z0-9]+$/)
  .openapi('ApiKeyId', { example: 'key_5f0c9a1e2b7d4c3a8e6f1b2d' });

/** A same-origin path such as /device?user_code=ABCD-EFGH; never a scheme or another host. */
export const RelativePath = z
  .string()
  .max(512)
  .regex(/^\/(?![/\\])[\x21-\x7e]*$/, 'must be a path on this server starting with a single /')
  .openapi({ description: 'Same-origin path the sign-in landing page continues to (e.g. a pending device approval)' });

export const MagicLinkRequest = z
  .object({
    email: z.string().trim().max(254).email(),
    next: RelativePath.optional(),
  })
  .openapi('MagicLinkRequest');
export type MagicLinkRequest = z.infer<typeof MagicLinkRequest>;

export const MagicLinkResponse = z
  .object({ message: z.string().describe('The same neutral text whether or not an account exists for the email') })
  .openapi('MagicLinkResponse');

export const VerifyQuery = z.object({
  token: z
    .string()
    .min(1)
    .max(256)
    .openapi({ description: `Single-use sign-in token from the email, valid ${LIMITS.magicLinkTtlMinutes} minutes` }),
});

/** POST /auth/verify: the sign-in page's button (a form), or a JSON client. */
export const VerifyRequest = z
  .object({
    token: z
      .string()
      .min(1)
      .max(256)
      .describe(`Single-use sign-in token from the email, valid ${LIMITS.magicLinkTtlMinutes} minutes`),
  })
  .openapi('VerifyRequest');

export const VerifyResponse = z
  .object({
    token: z
      .string()
      .describe(`Session token (JWT, HS256), valid ${LIMITS.sessionTokenHours} hours; send as Authorization: Bearer`),
  })
  .openapi('VerifyResponse');

export const CreateApiKeyRequest = z
  .object({
    name: displayString(1, 100, 'name').optional().describe('Label for the key; default "default"'),
    scopes: z.array(ApiKeyScope).min(1).max(API_KEY_SCOPES.length).optional().describe('Default: all scopes'),
  })
  .openapi('CreateApiKeyRequest');

export const CreatedApiKey = z
  .object({
    id: ApiKeyId,
    api_key: z
      .string()
      .regex(/^axl_[0-9A-Za-z]{43}$/)
      .describe('The raw key, shown once; only its SHA-256 is stored'),
    name: z.string(),
    scopes: z.array(ApiKeyScope),
    created_at: z.number().int().describe('Unix milliseconds'),
    audit_ref: z.string().describe('Audit-log entry recording the creation'),
  })
  .openapi('CreatedApiKey');

export const ApiKeyInfo = z
  .object({
    id: ApiKeyId,
    name: z.string(),
    scopes: z.array(ApiKeyScope),
    created_at: z.number().int().describe('Unix milliseconds'),
    last_used_at: z.number().int().nullable().describe('Unix milliseconds, refreshed at most once a minute'),
  })
  .openapi('ApiKeyInfo');

export const ApiKeyListQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(LIMITS.apiKeyPage.min)
    .max(LIMITS.apiKeyPage.max)
    .default(LIMITS.apiKeyPage.default)
    .describe('Keys per page'),
  cursor: z.string().min(1).max(200).optional().describe('next_cursor of the previous page'),
});

export const ApiKeyList = z
  .object({
    api_keys: z.array(ApiKeyInfo),
    next_cursor: z.string().nullable().describe('Pass as `cursor` for the next page; null on the last page'),
  })
  .openapi('ApiKeyList');

export const RevokedApiKey = z
  .object({ revoked: z.literal(true), id: ApiKeyId, audit_ref: z.string() })
  .openapi('RevokedApiKey');

/** GET /admin/accounts/{id}: what an operator needs to judge an account, no secrets. */
export const AdminAccount = z
  .object({
    id: AccountId,
    email: z.string(),
    wallet: z.string().nullable(),
    suspended: z.boolean(),
    created_at: z.number().int().describe('Unix milliseconds'),
    api_key_count: z.number().int().min(0).describe('live (unrevoked) keys'),
  })
  .openapi('AdminAccount');

export const AdminSuspension = z
  .object({ account_id: AccountId, suspended: z.boolean(), audit_ref: z.string() })
  .openapi('AdminSuspension');
