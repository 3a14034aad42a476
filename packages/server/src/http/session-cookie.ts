import { LIMITS } from '@axle/sdk';
import type { Context } from 'koa';

/**
 * The browser session set by the sign-in landing page so HTML pages (device approval) know who is
 * signed in. It carries the session JWT. HttpOnly keeps it from scripts; SameSite=Lax keeps it off
 * cross-site POSTs; Secure whenever the public URL is https. JSON API routes never read it (they take
 * Authorization headers), so it cannot be used for CSRF against them.
 */
export const SESSION_COOKIE = 'axle_session';

export function setSessionCookie(ctx: Context, jwt: string, secure: boolean): void {
  setBrowserCookie(ctx, SESSION_COOKIE, jwt, LIMITS.sessionTokenHours * 3600, secure);
}

/** Signs the browser out: the cookie is replaced by an empty one that expires at once. */
export function clearSessionCookie(ctx: Context, secure: boolean): void {
  setBrowserCookie(ctx, SESSION_COOKIE, '', 0, secure);
}

/**
 * Sets an HttpOnly, SameSite=Lax cookie for the whole site; Secure when the public URL is https. Written by hand:
 * Koa refuses `secure` cookies on plain-HTTP requests, which is what a TLS-terminating proxy forwards.
 */
export function setBrowserCookie(ctx: Context, name: string, value: string, maxAgeSeconds: number, secure: boolean) {
  const attrs = [`${name}=${value}`, 'Path=/', `Max-Age=${maxAgeSeconds}`, 'HttpOnly', 'SameSite=Lax'];
  if (secure) attrs.push('Secure');
  ctx.append('Set-Cookie', attrs.join('; '));
}

export function readSessionCookie(ctx: Context): string | undefined {
  return ctx.cookies.get(SESSION_COOKIE) || undefined;
}
