import { createHash, timingSafeEqual } from 'node:crypto';
import { API_KEY_SCOPES, type ApiKeyScope, ERROR_CODES } from '@axle/sdk';
import type { Context, Middleware, Next } from 'koa';
import type { Config } from '../config.js';
import { DomainError } from '../domain/errors.js';
import type { AccountsService } from '../services/accounts.js';
import type { JwtService } from '../services/jwt.js';
import { readSessionCookie } from './session-cookie.js';

/** Who is calling, set on ctx.state.identity by the middlewares below. */
export interface IdentityState {
  accountId: string;
  via: 'jwt' | 'key';
  keyId?: string;
  /** A session token carries every scope; a key carries its own. */
  scopes: ApiKeyScope[];
}

declare module 'koa' {
  interface DefaultState {
    identity?: IdentityState;
    /** The scopes that allow the matched route to a key (ROUTE_SCOPES; set by http/route.ts). */
    routeScopes?: readonly ApiKeyScope[] | null;
    admin?: { scope: 'read' | 'admin' };
  }
}

export type AdminScope = 'read' | 'admin';

export interface Identity {
  /** Authorization: Bearer <JWT>. */
  requireJwt(): Middleware;
  /**
   * Either a session token or X-API-Key: axl_… (or Authorization: Bearer axl_…). A key must hold one of the
   * scopes the route's entry in ROUTE_SCOPES names, else 403 insufficient_scope; the same for every key below.
   */
  requireJwtOrKey(): Middleware;
  /** X-API-Key only (a key acting on itself); checked against ROUTE_SCOPES like every key. */
  requireKey(): Middleware;
  /** Sets the identity when a key is presented; an unknown or revoked key is 401, no key passes through. */
  optionalKey(): Middleware;
  /** requireJwtOrKey when a key or token is presented; a request with neither passes through without an identity. */
  optionalJwtOrKey(): Middleware;
  /** AXLE_ADMIN_TOKEN for both scopes; AXLE_ADMIN_READ_TOKEN for 'read' only. */
  requireAdmin(scope: AdminScope): Middleware;
  /** After one of the identity middlewares: 403 account_suspended for a suspended account. */
  requireActiveAccount(): Middleware;
  /** requireActiveAccount when an identity was set; passes through without one. */
  activeAccountIfAny(): Middleware;
  /** The account signed in through the browser session cookie (HTML pages), or null. */
  sessionAccount(ctx: Context): Promise<string | null>;
}

export interface IdentityDeps {
  accounts: AccountsService;
  config: Pick<Config, 'adminToken' | 'adminReadToken'>;
  jwt: JwtService;
}

const unauthorized = (message = 'Authentication required') => new DomainError(ERROR_CODES.UNAUTHORIZED, message);
const invalidKey = () => new DomainError(ERROR_CODES.INVALID_API_KEY, 'Invalid API key');
const invalidSession = () => unauthorized('Invalid or expired session token');

/** The credentials in the request: X-API-Key or a Bearer value starting axl_ is a key; any other Bearer value is a JWT. */
function presented(ctx: Context): { key?: string; jwt?: string } {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('authorization'))?.[1];
  const bearerIsKey = bearer?.startsWith('axl_') ?? false;
  return { key: ctx.get('x-api-key') || (bearerIsKey ? bearer : undefined), jwt: bearerIsKey ? undefined : bearer };
}

const digest = (s: string) => createHash('sha256').update(s).digest();
/** Compares digests so neither the content nor the length of a configured token leaks through timing. */
export const sameSecret = (given: string, configured: string | undefined) =>
  configured !== undefined && timingSafeEqual(digest(given), digest(configured));

export function createIdentity({ accounts, config, jwt }: IdentityDeps): Identity {
  async function fromKey(raw: string): Promise<IdentityState> {
    const key = await accounts.authenticateKey(raw);
    if (!key) throw invalidKey();
    return { accountId: key.accountId, via: 'key', keyId: key.keyId, scopes: key.scopes };
  }

  async function accountFromJwt(token: string): Promise<string | null> {
    const sub = await jwt.verify(token);
    return sub && (await accounts.get(sub)) ? sub : null;
  }

  async function fromJwt(token: string): Promise<IdentityState> {
    const accountId = await accountFromJwt(token);
    if (!accountId) throw invalidSession();
    return { accountId, via: 'jwt', scopes: [...API_KEY_SCOPES] };
  }

  /** A key must hold one of the route's scopes (the one table, ROUTE_SCOPES); a route missing from it takes none. */
  function checkScope(identity: IdentityState, allowed: readonly ApiKeyScope[] | null | undefined): void {
    if (identity.via !== 'key' || allowed === null) return;
    if (allowed?.some((s) => identity.scopes.includes(s))) return;
    throw new DomainError(
      ERROR_CODES.INSUFFICIENT_SCOPE,
      allowed?.length ? `This API key lacks the ${allowed.join(' or ')} scope` : 'This route does not take an API key',
      { required_scope: allowed?.[0] ?? null, allowed_scopes: allowed ?? [] },
    );
  }

  async function assertActive(accountId: string | undefined): Promise<void> {
    if (!accountId) throw unauthorized();
    const account = await accounts.get(accountId);
    if (!account) throw unauthorized();
    if (account.suspended) throw new DomainError(ERROR_CODES.ACCOUNT_SUSPENDED, 'Account suspended');
  }

  const guard =
    (resolve: (ctx: Context) => Promise<IdentityState | undefined>): Middleware =>
    async (ctx: Context, next: Next) => {
      const identity = await resolve(ctx);
      if (identity) {
        checkScope(identity, ctx.state.routeScopes);
        ctx.state.identity = identity;
      }
      return next();
    };

  return {
    requireJwt: () =>
      guard(async (ctx) => {
        const { jwt: token } = presented(ctx);
        if (!token) throw unauthorized('Session token required (Authorization: Bearer <JWT>)');
        return fromJwt(token);
      }),

    requireJwtOrKey: () =>
      guard(async (ctx) => {
        const { key, jwt: token } = presented(ctx);
        if (key) return fromKey(key);
        if (token) return fromJwt(token);
        throw unauthorized('API key or session token required');
      }),

    requireKey: () =>
      guard(async (ctx) => {
        const { key } = presented(ctx);
        if (!key) throw unauthorized('API key required (X-API-Key: axl_…)');
        return fromKey(key);
      }),

    optionalKey: () =>
      guard(async (ctx) => {
        const { key } = presented(ctx);
        return key ? fromKey(key) : undefined;
      }),

    optionalJwtOrKey: () =>
      guard(async (ctx) => {
        const { key, jwt: token } = presented(ctx);
        if (key) return fromKey(key);
        return token ? fromJwt(token) : undefined;
      }),

    requireAdmin: (scope) => async (ctx, next) => {
      const token = /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('authorization'))?.[1];
      if (!token) throw unauthorized('Admin token required');
      if (sameSecret(token, config.adminToken)) ctx.state.admin = { scope: 'admin' };
      else if (sameSecret(token, config.adminReadToken)) {
        if (scope === 'admin')
          throw new DomainError(ERROR_CODES.INSUFFICIENT_SCOPE, 'This route needs the admin token', {
            required_scope: 'admin',
          });
        ctx.state.admin = { scope: 'read' };
      } else throw unauthorized('Invalid admin token');
      return next();
    },

    requireActiveAccount: () => async (ctx, next) => {
      await assertActive(ctx.state.identity?.accountId);
      return next();
    },

    activeAccountIfAny: () => async (ctx, next) => {
      if (ctx.state.identity) await assertActive(ctx.state.identity.accountId);
      return next();
    },

    async sessionAccount(ctx) {
      const token = readSessionCookie(ctx);
      return token ? accountFromJwt(token) : null;
    },
  };
}
