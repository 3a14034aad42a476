import type { Finding } from './types.js';
import { IBAN_LENGTHS, ibanValid } from './validators.js';

/**
 * Compact (GB82WEST12345698765432) or printed in blocks of four (GB82 WEST 1234 5698 7654 32). The match starts
 * at the check digits, which are rarer than letters, and the country code is checked by the lookbehind.
 */
const CANDIDATE =
  /\d\d(?<=(?<![A-Za-z0-9])[A-Za-z]{2}\d\d)(?:[A-Za-z0-9]{11,30}|(?: [A-Za-z0-9]{4}){2,7}(?: [A-Za-z0-9]{1,4})?)(?![A-Za-z0-9])/g;

/**
 * IBANs validated by country length and mod 97. A printed IBAN followed by a four-letter word reads as one more
 * block, so a failing candidate is cut back to its country's length before giving up.
 */
export function findIbans(text: string): Finding[] {
  const found: Finding[] = [];
  for (const match of text.matchAll(CANDIDATE)) {
    const m = { index: match.index - 2, 0: text.slice(match.index - 2, match.index + match[0].length) };
    const expected = IBAN_LENGTHS[m[0].slice(0, 2).toUpperCase()];
    if (expected === undefined) continue;
    let end = m[0].length;
    if (!ibanValid(m[0])) {
      let kept = 0;
      end = 0;
      while (end < m[0].length && kept < expected) if (m[0][end++] !== ' ') kept++;
      if (kept < expected || /[A-Za-z0-9]/.test(m[0][end] ?? '') || !ibanValid(m[0].slice(0, end))) continue;
    }
    found.push({ type: 'iban', start: m.index, end: m.index + end });
  }
  return found;
}
