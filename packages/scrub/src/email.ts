import type { Finding } from './types.js';

// Letters of any script: internationalised addresses (RFC 6531) and domains (IDN) are written in them, and an
// ASCII-only scan would stop inside `françois@…`, leaving `fran` beside the placeholder.
const LOCAL = /[\p{L}\p{M}\p{N}._%+-]/u;
const DOMAIN = /[\p{L}\p{M}\p{N}.-]/u;
const ALNUM = /[\p{L}\p{N}]/u;
const EMAIL =
  /^[\p{L}\p{N}][\p{L}\p{M}\p{N}._%+-]{0,63}@(?:[\p{L}\p{M}\p{N}-]{1,63}\.){1,8}(?:[A-Za-z]{2,24}|xn--[A-Za-z0-9-]{1,59}|[\p{L}\p{M}]{2,24})$/u;
/** An image's pixel-density suffix (`logo@2x.png`, `icon@1.5x.jpg`): a file name, not a mailbox. */
const DENSITY_SUFFIX = /@\d(?:\.\d{1,2})?x\.[A-Za-z]{3,4}$/;
/** A URL's `user:password@host`: the part after the colon is a password, not a mailbox. */
const URL_USERINFO = /:\/\/[^\s/@]*:$/;

/**
 * Email addresses, found from each `@` outwards rather than by a pattern tried at every letter: transcripts are
 * mostly letters and rarely contain `@`, so this stays fast on large inputs.
 */
export function findEmails(text: string): Finding[] {
  const found: Finding[] = [];
  for (let at = text.indexOf('@'); at >= 0; at = text.indexOf('@', at + 1)) {
    let start = at;
    while (start > 0 && at - start < 64 && LOCAL.test(text[start - 1])) start--;
    let end = at + 1;
    while (end < text.length && end - at < 254 && DOMAIN.test(text[end])) end++;
    while (end > at + 1 && /[.-]/.test(text[end - 1])) end--; // sentence punctuation after the address
    while (start < at && !ALNUM.test(text[start])) start++;
    const candidate = text.slice(start, end);
    if (!EMAIL.test(candidate) || /^git@/i.test(candidate) || DENSITY_SUFFIX.test(candidate)) continue;
    if (URL_USERINFO.test(text.slice(Math.max(0, start - 200), start))) continue;
    found.push({ type: 'email', start, end });
  }
  return found;
}
