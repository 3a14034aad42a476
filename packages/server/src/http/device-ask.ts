import { createHash, randomBytes } from 'node:crypto';
import { LIMITS } from '@axle/sdk';
import type { Context } from 'koa';
import { setBrowserCookie } from './session-cookie.js';

/*
 * Binds a device-page sign-in link to the browser that asked for it. Anyone can ask for a link to
 * someone else's address (the device page's form from a script, or POST /auth/magic-link with a `next`),
 * and the mail is a genuine Axle mail; if that link opened the approval of the asker's device code, the
 * recipient would be one click from handing the asker a key. So the device page's form sets a random
 * cookie and stores its digest in the link's `next` (`ask=`); the link opens, continues to, or decides
 * an approval only in a browser holding that cookie.
 */
export const DEVICE_ASK_COOKIE = 'axle_device_ask';

const digest = (value: string) => createHash('sha256').update(value).digest('base64url');

/** Sets a new ask cookie on this browser and returns the digest to carry in the link's `next`. */
export function askFromThisBrowser(ctx: Context, secure: boolean): string {
  const value = randomBytes(32).toString('base64url');
  setBrowserCookie(ctx, DEVICE_ASK_COOKIE, value, LIMITS.magicLinkTtlMinutes * 60, secure);
  return digest(value);
}

/** Whether `next` was asked for by this browser: its `ask` is the digest of this browser's ask cookie. */
export function askedHere(ctx: Context, next: string | null | undefined): boolean {
  if (!next) return false;
  const ask = new URL(next, 'http://local.invalid').searchParams.get('ask');
  const cookie = ctx.cookies.get(DEVICE_ASK_COOKIE);
  return Boolean(ask && cookie && digest(cookie) === ask);
}

/**
 * Whether following `next` would open the approval of a code: the device page with a user_code, in any
 * spelling the router also answers (letter case, a trailing slash, dot segments, other parameters first).
 */
export function leadsToApproval(next: string): boolean {
  const url = new URL(next, 'http://local.invalid');
  return url.pathname.toLowerCase().replace(/\/+$/, '') === '/device' && url.searchParams.has('user_code');
}
