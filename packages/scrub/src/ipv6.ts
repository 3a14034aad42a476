import { isIPv6 } from 'node:net';
import type { Finding } from './types.js';

/** Two colons around at most four hex digits: where every IPv6 address has to show itself. */
const SEED = /:[0-9A-Fa-f]{0,4}:/g;
const ADDRESS_CHAR = /[0-9A-Fa-f:.]/;
const WORD_CHAR = /[\w]/;

/**
 * IPv6 addresses, grown from a colon pair outwards and confirmed by node:net. Loopback and bare `::` forms,
 * times (12:30:45), MAC addresses and C++/Rust paths (std::vec) fail validation or the checks below.
 */
export function findIpv6(text: string): Finding[] {
  const found: Finding[] = [];
  let coveredTo = 0;
  for (const m of text.matchAll(SEED)) {
    if (m.index < coveredTo) continue;
    let start = m.index;
    while (start > 0 && m.index - start < 40 && ADDRESS_CHAR.test(text[start - 1])) start--;
    let end = m.index + m[0].length;
    while (end < text.length && end - start < 46 && ADDRESS_CHAR.test(text[end])) end++;
    coveredTo = end;
    while (end > start && /[.:]/.test(text[end - 1]) && text.slice(end - 2, end) !== '::') end--;
    if (WORD_CHAR.test(text[start - 1] ?? '') || WORD_CHAR.test(text[end] ?? '')) continue;
    const v = text.slice(start, end);
    if (isIPv6(v) && /\d/.test(v) && v.split(':').filter(Boolean).length >= 3 && v !== '::1') {
      found.push({ type: 'ip_address', start, end });
    }
  }
  return found;
}
