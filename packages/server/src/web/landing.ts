import { createHash } from 'node:crypto';
import { LIMITS } from '@axle/sdk';

const STYLE = 'body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#1a1a1a}a.button{display:inline-block;padding:.5rem 1rem;background:#1a1a1a;color:#fff;text-decoration:none;border-radius:4px}';
const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64');

/**
 * Headers for the sign-in pages: no script may run (CSP allows only the one inline style, by
 * hash), the token-bearing URL is never sent as a Referer, and nothing is cached.
 */
export const LANDING_HEADERS: Record<string, string> = {
  'Content-Type': 'text/html; charset=utf-8',
  'Content-Security-Policy': `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'`,
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
};

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${title}</title><style>${STYLE}</style></head><body>${body}</body></html>`;

/** After a successful magic link: who is signed in, and the way on to a pending device approval. */
export function signedInPage(email: string, next: string | null): string {
  const onward = next
    ? `<p>Your sign-in is waiting to be finished.</p><p><a class="button" href="${escapeHtml(next)}">Continue</a></p>`
    : '<p>You can close this tab and return to your terminal or agent.</p>';
  return page('Signed in · Axle', `<h1>Signed in</h1><p>You are signed in to Axle as <strong>${escapeHtml(email)}</strong>.</p>${onward}`);
}

export function signInFailedPage(message: string): string {
  return page('Sign-in failed · Axle', `<h1>Sign-in failed</h1><p>${escapeHtml(message)}</p><p>Request a new sign-in link and use it within ${LIMITS.magicLinkTtlMinutes} minutes.</p>`);
}
