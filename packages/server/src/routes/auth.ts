import {
  ERROR_CODES,
  LIMITS,
  MagicLinkRequest,
  MagicLinkResponse,
  VerifyQuery,
  VerifyRequest,
  VerifyResponse,
} from '@axle/sdk';
import type { Context } from 'koa';
import type { AppDeps } from '../deps.js';
import { clientIp } from '../http/client-ip.js';
import { DomainError } from '../domain/errors.js';
import { CROSS_SITE_REFUSED, refuseCrossSite, sameOrigin } from '../http/csrf.js';
import { type Api, reply } from '../http/route.js';
import { askedHere, leadsToApproval } from '../http/device-ask.js';
import { setSessionCookie } from '../http/session-cookie.js';
import { confirmSignInPage, LANDING_HEADERS, signedInPage, signInFailedPage } from '../web/landing.js';
import { PAGE_HEADERS } from '../web/layout.js';
import { isDevicePage } from '../web/device.js';

const NEUTRAL = `If that address can receive email, a sign-in link is on its way. It works once, within ${LIMITS.magicLinkTtlMinutes} minutes.`;
const INVALID_LINK = 'This sign-in link is invalid, expired or already used.';
/** Session tokens are never kept by a browser or proxy cache. */
const NO_STORE = { 'Cache-Control': 'no-store' };

/** POST /auth/magic-link and GET /auth/verify. */
export function authRoutes(api: Api, deps: AppDeps): void {
  const { config, magicLinks: links } = deps;
  const ownOrigin = () => new URL(deps.baseUrl()).origin;

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
    before: [refuseCrossSite(ownOrigin)],
    body: MagicLinkRequest,
    responses: {
      200: { description: 'Neutral confirmation', schema: MagicLinkResponse },
      400: { description: 'Missing or invalid email' },
      403: { description: 'Sent by a page of another site (Origin or Sec-Fetch-Site names another origin)' },
      429: {
        description: 'Per-email or per-IP limit reached',
        headers: { 'Retry-After': 'seconds until the window resets' },
      },
      503: { description: 'The mail server refused or is unreachable' },
    },
    handler: async ({ body }, ctx) => {
      await links.request(body.email, clientIp(ctx, config.trustProxy), body.next ?? null);
      return { message: NEUTRAL };
    },
  });

  /** Browsers get pages; other clients JSON. */
  const wantsHtml = (ctx: Context) => ctx.accepts('json', 'html') === 'html';

  api.route({
    method: 'get',
    path: '/auth/verify',
    operationId: 'verifyMagicLink',
    summary: 'Open a sign-in link: a JSON client exchanges it for a session token; a browser gets a page with a button',
    description:
      'A JSON client (Accept: application/json) consumes the single-use token and gets a 24-hour session JWT. A browser (Accept: text/html) ' +
      'gets a page with one button that POSTs the token to /auth/verify, and consumes nothing: mail scanners that fetch links (HEAD or GET) ' +
      'leave them working. HEAD never consumes the token. A link asked for on the device page redirects (303) to the approval there, ' +
      'whose Approve button also uses the token to sign in.',
    tags: ['Auth'],
    query: VerifyQuery,
    responses: {
      200: {
        description: 'Session token (JSON), or the page with the sign-in button for browsers',
        schema: VerifyResponse,
      },
      303: { description: 'A browser opening a link asked for on the device page goes to the approval there' },
      400: { description: 'Missing token' },
      401: { description: 'Invalid, expired or already used token (JSON clients)' },
    },
    handler: async ({ query }, ctx) => {
      if (ctx.method === 'HEAD' || wantsHtml(ctx)) {
        // A sign-in started on the device page goes straight to the approval, whose one button also signs in.
        const next = (await links.peek(query.token))?.next;
        // Only in the browser that asked for it: a link someone else asked for must not lead to their device.
        if (next && isDevicePage(next) && askedHere(ctx, next))
          return reply(303, '', { ...LANDING_HEADERS, Location: `${next}&link=${encodeURIComponent(query.token)}` });
        return reply(200, confirmSignInPage(query.token), PAGE_HEADERS);
      }
      const signIn = await links.verify(query.token);
      if (!signIn) throw new DomainError(ERROR_CODES.UNAUTHORIZED, INVALID_LINK);
      return reply(200, { token: signIn.jwt }, NO_STORE);
    },
  });

  api.route({
    method: 'post',
    path: '/auth/verify',
    operationId: 'consumeMagicLink',
    summary: "Exchange a sign-in token for a session (the sign-in page's button, or a JSON client)",
    description:
      'Consumes the single-use token. A form post from the sign-in page gets a landing page and an HttpOnly session cookie, so the ' +
      'device-approval page knows who is signed in, and redirects (303) to that page when the sign-in started there; a JSON client gets the ' +
      'session JWT. Refused (403) when sent by a page of another site.',
    tags: ['Auth'],
    body: VerifyRequest,
    responses: {
      200: { description: 'Session token (JSON), or the landing page for the browser form', schema: VerifyResponse },
      303: { description: 'The browser form of a sign-in that started on a page of this server continues there' },
      400: { description: 'Missing token' },
      401: { description: 'Invalid, expired or already used token' },
      403: { description: 'Sent by a page of another site' },
    },
    handler: async ({ body }, ctx) => {
      const html = ctx.request.is('urlencoded') === 'urlencoded' || wantsHtml(ctx);
      if (!sameOrigin(ctx, ownOrigin())) {
        if (html) return reply(403, signInFailedPage('This request did not come from this site.'), LANDING_HEADERS);
        throw new DomainError(ERROR_CODES.FORBIDDEN, CROSS_SITE_REFUSED);
      }
      const signIn = await links.verify(body.token);
      if (!signIn) {
        if (html) return reply(401, signInFailedPage(INVALID_LINK), LANDING_HEADERS);
        throw new DomainError(ERROR_CODES.UNAUTHORIZED, INVALID_LINK);
      }
      if (!html) return reply(200, { token: signIn.jwt }, NO_STORE);
      setSessionCookie(ctx, signIn.jwt, deps.baseUrl().startsWith('https:'));
      if (signIn.next && (!leadsToApproval(signIn.next) || askedHere(ctx, signIn.next)))
        return reply(303, '', { ...LANDING_HEADERS, Location: signIn.next });
      return reply(200, signedInPage(signIn.account.email), LANDING_HEADERS);
    },
  });
}
