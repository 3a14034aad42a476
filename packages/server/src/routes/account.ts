import {
  ApiKeyId,
  ApiKeyList,
  ApiKeyListQuery,
  CreateApiKeyRequest,
  CreatedApiKey,
  Dashboard,
  ERROR_CODES,
  LIMITS,
  RevokedApiKey,
  z,
} from '@axle/sdk';
import type { AppDeps } from '../deps.js';
import { DomainError } from '../domain/errors.js';
import { type Api, reply } from '../http/route.js';

/** The caller's account id, set by an identity middleware in `before`. */
const accountOf = (state: { identity?: { accountId: string } }): string => state.identity!.accountId;

/** API keys and the dashboard. Terms, consent and settings routes live in their own modules. */
export function accountRoutes(api: Api, deps: AppDeps): void {
  const { accounts, identity } = deps;

  api.route({
    method: 'post',
    path: '/account/api-keys',
    operationId: 'createApiKey',
    summary: 'Create an API key',
    description:
      'Returns the raw key (axl_…) once; only its SHA-256 is stored. Optional body: name, scopes ' +
      '(search, contribute, account; default all). Suspended accounts are refused (403 account_suspended). The creation is audit-logged. ' +
      `An account holds at most ${LIMITS.liveApiKeysPerAccount} live keys (409 api_key_limit, with max_live_keys) and creates at most ` +
      `${LIMITS.accountWrites.apiKeyCreate.perMinute} a minute and ${LIMITS.accountWrites.apiKeyCreate.perHour} an hour (429 with Retry-After).`,
    tags: ['Account'],
    security: ['BearerJWT'],
    before: [identity.requireJwt(), identity.requireActiveAccount()],
    body: CreateApiKeyRequest,
    responses: {
      200: { description: 'The new key, shown once', schema: CreatedApiKey },
      401: { description: 'Missing or invalid session token' },
      403: { description: 'Account suspended' },
      409: {
        description: `The account already holds ${LIMITS.liveApiKeysPerAccount} live keys (code api_key_limit, max_live_keys)`,
      },
      429: {
        description: 'Too many keys created recently',
        headers: { 'Retry-After': 'seconds until a key may be created' },
      },
    },
    // The raw key is in this response only: no browser or proxy may keep a copy.
    handler: async ({ body }, ctx) =>
      reply(200, await accounts.createKey(accountOf(ctx.state), body), { 'Cache-Control': 'no-store' }),
  });

  api.route({
    method: 'get',
    path: '/account/api-keys',
    operationId: 'listApiKeys',
    summary: 'List your live API keys',
    description:
      'Never returns raw keys or hashes. Accepts a session token or a key with the account scope. Paged, oldest first: ' +
      '`limit` keys a page, and `next_cursor` to pass as `cursor` for the next one.',
    tags: ['Account'],
    security: ['BearerJWT', 'ApiKey'],
    before: [identity.requireJwtOrKey()],
    query: ApiKeyListQuery,
    responses: {
      200: { description: 'Live keys, oldest first', schema: ApiKeyList },
      400: { description: 'Invalid limit or cursor' },
      401: { description: 'Missing or invalid credentials' },
      403: { description: 'Key lacks the account scope' },
    },
    handler: async ({ query }, ctx) => {
      const page = await accounts.listKeyPage(accountOf(ctx.state), query.limit, query.cursor);
      return { api_keys: page.keys.map(({ account_id: _, ...k }) => k), next_cursor: page.next_cursor };
    },
  });

  api.route({
    method: 'delete',
    path: '/account/api-keys/{id}',
    operationId: 'revokeApiKey',
    summary: 'Revoke one of your API keys',
    description: 'The key stops working at once (401 Invalid API key). The revocation is audit-logged.',
    tags: ['Account'],
    security: ['BearerJWT'],
    before: [identity.requireJwt()],
    params: z.object({ id: ApiKeyId }),
    responses: {
      200: { description: 'Revoked', schema: RevokedApiKey },
      401: { description: 'Missing or invalid session token' },
      404: { description: 'No such live key on this account' },
    },
    handler: async ({ params }, ctx) => {
      const revoked = await accounts.revokeKey(accountOf(ctx.state), params.id);
      if (!revoked) throw new DomainError(ERROR_CODES.NOT_FOUND, 'API key not found', { id: params.id });
      return { revoked: true as const, id: params.id, audit_ref: revoked.audit_ref };
    },
  });

  api.route({
    method: 'delete',
    path: '/account/api-key',
    operationId: 'revokeOwnApiKey',
    summary: 'Revoke the API key this request is made with',
    description:
      'For a tool that holds only its own key (the CLI after device sign-in, on `axle setup --undo`): the key stops working at once. ' +
      'Any scope may give itself up; no other key is touched. The revocation is audit-logged.',
    tags: ['Account'],
    security: ['ApiKey'],
    before: [identity.requireKey()],
    responses: {
      200: { description: 'Revoked', schema: RevokedApiKey },
      401: { description: 'Missing or invalid API key' },
    },
    handler: async (_input, ctx) => {
      const keyId = (ctx.state as { identity: { keyId: string } }).identity.keyId;
      const revoked = await accounts.revokeKey(accountOf(ctx.state), keyId);
      if (!revoked) throw new DomainError(ERROR_CODES.UNAUTHORIZED, 'Invalid API key');
      return { revoked: true as const, id: keyId, audit_ref: revoked.audit_ref };
    },
  });

  api.route({
    method: 'get',
    path: '/account/dashboard',
    operationId: 'getDashboard',
    summary: 'Your account at a glance',
    description: 'Email, linked wallet and key summaries; raw keys and hashes are never returned.',
    tags: ['Account'],
    security: ['BearerJWT'],
    before: [identity.requireJwt()],
    responses: {
      200: { description: 'Dashboard', schema: Dashboard },
      401: { description: 'Missing or invalid session token' },
    },
    handler: async (_input, ctx) => {
      const accountId = accountOf(ctx.state);
      const [account, keys] = await Promise.all([accounts.get(accountId), accounts.listKeys(accountId)]);
      if (!account) throw new DomainError(ERROR_CODES.UNAUTHORIZED, 'Authentication required');
      return {
        email: account.email,
        wallet: account.wallet,
        api_keys: keys.map((k) => ({ id: k.id, name: k.name, created_at: k.created_at })),
      };
    },
  });
}
