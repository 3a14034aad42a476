import { ERROR_CODES, LIMITS, MagicLinkRequest, MagicLinkResponse, VerifyQuery, VerifyResponse } from '@axle/sdk';
import type { AppDeps } from '../deps.js';
import { clientIp } from '../http/client-ip.js';
import { DomainError } from '../domain/errors.js';
import { type Api, reply } from '../http/route.js';
import { setSessionCookie } from '../http/session-cookie.js';
import { LANDING_HEADERS, signedInPage, signInFailedPage } from '../web/landing.js';

const NEUTRAL = `If that address can receive email, a sign-in link is on its way. It works once, within ${LIMITS.magicLinkTtlMinutes} minutes.`;
const INVALID_LINK = 'This sign-in link is invalid, expired or already used.';

/** POST /auth/magic-link and GET /auth/verify. */
export function authRoutes(api: Api, deps: AppDeps): void {
  const { config, magicLinks: links } = deps;

  api.route({
    method: 'post',
    path: '/auth/magic-link',
    operationId: 'requestMagicLink',
    summary: 'Email a single-use sign-in link',
    description:
      'Sends a link to GET /auth/verify that works once within 15 minutes. The answer is the same whether or not an account exists; ' +
      'the account is created on the first verification. Limits: 5 requests per email and 20 per client IP per 15 minutes (429 with Retry-After). ' +
      '`next` (optional) is a path on this server the browser landing page continues to, e.g. a pending device approval.',
    tags: ['Auth'],
    body: MagicLinkRequest,
    responses: {
      200: { description: 'Neutral confirmation', schema: MagicLinkResponse },
      400: { description: 'Missing or invalid email' },
      429: { description: 'Per-email or per-IP limit reached', headers: { 'Retry-After': 'seconds until the window resets' } },
      503: { description: 'The mail server refused or is unreachable' },
    },
    handler: async ({ body }, ctx) => {
      await links.request(body.email, clientIp(ctx, config.trustProxy), body.next ?? null);
      return { message: NEUTRAL };
    },
  });

  api.route({
    method: 'get',
    path: '/auth/verify',
    operationId: 'verifyMagicLink',
    summary: 'Exchange a sign-in link for a session token',
    description:
      'Consumes the single-use token and returns a 24-hour session JWT. A browser (Accept: text/html) gets a small landing page instead, ' +
      'and an HttpOnly session cookie so the device-approval page knows who is signed in; it continues to that page when the sign-in started there.',
    tags: ['Auth'],
    query: VerifyQuery,
    responses: {
      200: { description: 'Session token (JSON), or the landing page for browsers', schema: VerifyResponse },
      400: { description: 'Missing token' },
      401: { description: 'Invalid, expired or already used token' },
    },
    handler: async ({ query }, ctx) => {
      const html = ctx.accepts('json', 'html') === 'html';
      const signIn = await links.verify(query.token);
      if (!signIn) {
        if (html) return reply(401, signInFailedPage(INVALID_LINK), LANDING_HEADERS);
        throw new DomainError(ERROR_CODES.UNAUTHORIZED, INVALID_LINK);
      }
      if (!html) return { token: signIn.jwt };
      setSessionCookie(ctx, signIn.jwt, deps.baseUrl().startsWith('https:'));
      return reply(200, signedInPage(signIn.account.email, signIn.next), LANDING_HEADERS);
    },
  });
}
