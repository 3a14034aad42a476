import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Context, Middleware } from 'koa';
import { ERROR_CODES } from '@axle/sdk';
import { DomainError } from '../domain/errors.js';

/*
 * CSRF protection for the HTML forms. The token is an HMAC keyed by the session itself (the
 * HttpOnly session cookie, which a cross-site page can neither read nor forge), so it is bound to
 * that session, needs no server-side state or extra secret, and works the same on every instance.
 */

const LABEL = 'axle csrf v1';

export const csrfToken = (session: string): string => createHmac('sha256', session).update(LABEL).digest('base64url');

export function csrfValid(session: string, given: unknown): boolean {
  if (typeof given !== 'string') return false;
  const expected = Buffer.from(csrfToken(session));
  const actual = Buffer.from(given);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/**
 * A browser's own account of where a POST came from: Origin (and Sec-Fetch-Site where sent) must
 * name this site. Clients that send neither are not browsers and still need the token.
 */
export function sameOrigin(ctx: Context, ownOrigin: string): boolean {
  const origin = ctx.get('origin');
  if (origin && origin !== ownOrigin) return false;
  const site = ctx.get('sec-fetch-site');
  return !site || site === 'same-origin';
}

export const CROSS_SITE_REFUSED = 'Cross-site requests are refused: call this endpoint from your own client';

/**
 * For JSON endpoints that a page on another site must not be able to call in a visitor's name
 * (a sign-in mail, a device code): browsers name the calling page's origin on every cross-site
 * POST, forms included, and other clients send none.
 */
export function refuseCrossSite(ownOrigin: () => string): Middleware {
  return async (ctx, next) => {
    if (!sameOrigin(ctx, ownOrigin())) throw new DomainError(ERROR_CODES.FORBIDDEN, CROSS_SITE_REFUSED);
    return next();
  };
}
