import type { Finding } from './types.js';

const BEGIN = /-----BEGIN[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----/g;
const END = /-----END[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----/g;
/** Body characters when the END marker is missing (truncated tool output): base64, whitespace and literal `\n`. */
const BODY = /(?:[A-Za-z0-9+/=\s:,-]|\\[nr])*/y;
const MAX_KEY_LENGTH = 16_384;

/**
 * PEM private keys (RSA, EC, OpenSSH, PGP, PKCS#8), including ones inside JSON strings. END markers are located
 * once and paired with BEGIN markers in order, so a flood of BEGIN markers costs a single pass.
 */
export function findPrivateKeys(text: string): Finding[] {
  if (!text.includes('PRIVATE KEY')) return [];
  const ends = [...text.matchAll(END)].map((m) => m.index + m[0].length);
  const found: Finding[] = [];
  let e = 0;
  let coveredTo = 0;
  for (const m of text.matchAll(BEGIN)) {
    if (m.index < coveredTo) continue;
    while (e < ends.length && ends[e] <= m.index) e++;
    let end = ends[e];
    if (end === undefined || end - m.index > MAX_KEY_LENGTH) {
      // Scanned within a bounded slice: an unterminated body must not cost a pass over the rest of the text.
      const window = text.slice(m.index, m.index + MAX_KEY_LENGTH);
      BODY.lastIndex = m[0].length;
      BODY.exec(window);
      end = m.index + BODY.lastIndex;
    }
    found.push({ type: 'private_key', start: m.index, end });
    coveredTo = end;
  }
  return found;
}
