import { LIMITS } from '../limits.js';
import { displayString } from '../display-text.js';
import { z } from '../zod.js';
import { AccountId } from './account.js';

/**
 * What an API key may do. A key without the scope a route needs gets 403 `insufficient_scope`.
 * New keys (and keys minted by device sign-in) get all three unless the request narrows them.
 */
export const API_KEY_SCOPES = ['search', 'contribute', 'account'] as const;
export const ApiKeyScope = z.enum(API_KEY_SCOPES).openapi('ApiKeyScope', {
  description:
    'search: search and unlock routes (POST /discover, POST /knowledge, GET /knowledge/{id}). ' +
    'contribute: POST /learn, POST /account/accept-terms, reviewing your own pending learnings. ' +
    'account: account read routes (GET /account/…). A session token (JWT) carries every scope.',
});
export type ApiKeyScope = z.infer<typeof ApiKeyScope>;

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
