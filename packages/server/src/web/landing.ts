import { LIMITS } from '@axle/sdk';
import { esc, PAGE_HEADERS, page } from './layout.js';

/**
 * The shared page headers (no script at all, strict CSP), except that this page's URL carries the
 * sign-in token, so it is never sent on as a Referer, not even to our own pages.
 */
export const LANDING_HEADERS: Readonly<Record<string, string>> = { ...PAGE_HEADERS, 'Referrer-Policy': 'no-referrer' };

/**
 * What a sign-in link shows a browser: one button that POSTs the token. Opening the link consumes
 * nothing, so a mail scanner that fetches it leaves it working. Served with PAGE_HEADERS, whose
 * same-origin Referrer-Policy keeps the Origin header on the button's POST (no-referrer sends `null`).
 */
export function confirmSignInPage(token: string): string {
  return page(
    'Sign in',
    `<h1>Sign in to Axle</h1><p>Press the button to finish signing in. The link works once, within ${LIMITS.magicLinkTtlMinutes} minutes of being sent.</p>` +
      `<form method="post" action="/auth/verify"><input type="hidden" name="token" value="${esc(token)}">` +
      '<div class="actions"><button class="primary" type="submit">Sign in</button></div></form>',
  );
}

/** After a successful magic link that did not start on a page of this server: who is signed in. */
export function signedInPage(email: string): string {
  return page(
    'Signed in',
    `<h1>Signed in</h1><p>You are signed in to Axle as <strong>${esc(email)}</strong>.</p><p class="muted">You can close this tab and return to your terminal or agent.</p>`,
  );
}

export function signInFailedPage(message: string): string {
  return page(
    'Sign-in failed',
    `<h1>Sign-in failed</h1><p class="notice error">${esc(message)}</p><p>Request a new sign-in link and use it within ${LIMITS.magicLinkTtlMinutes} minutes.</p>`,
  );
}
