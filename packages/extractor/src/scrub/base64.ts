import { charClass, runsOf } from './runs.js';
import type { Finding } from './types.js';

/** Base64 and base64url characters; padding is taken separately, at the end of a run. */
const BASE64_CHARS = charClass('A-Za-z0-9+/_-');
const MIN_CANDIDATE = 16;
const MAX_CANDIDATE = 8_192;

/** Decoded text if `s` is base64 of mostly printable UTF-8, else undefined. */
export function decodeBase64Text(s: string): string | undefined {
  // Base64 of text of this length always mixes cases and digits; requiring all three skips identifiers cheaply.
  if (!/[a-z]/.test(s) || !/[A-Z]/.test(s) || !/\d/.test(s) || s.length % 4 === 1) return undefined;
  const buf = Buffer.from(s, s.includes('-') || s.includes('_') ? 'base64url' : 'base64');
  if (buf.length < 8) return undefined;
  let printable = 0;
  for (let i = 0; i < buf.length; i++) {
    const b = buf[i];
    if ((b >= 0x20 && b < 0x7f) || b === 0x09 || b === 0x0a || b === 0x0d || b >= 0x80) printable++;
  }
  if (printable / buf.length < 0.95) return undefined;
  const decoded = buf.toString('utf8');
  return decoded.includes('\ufffd') ? undefined : decoded;
}

/**
 * Base64 blobs whose decoded text holds a secret, decoding nested base64 up to `depth` levels. The whole encoded
 * original is reported, typed after the secret inside it.
 */
export function findEncodedSecrets(text: string, detectSecrets: (s: string) => Finding[], depth = 2): Finding[] {
  if (depth <= 0) return [];
  const found: Finding[] = [];
  runsOf(text, BASE64_CHARS, MIN_CANDIDATE, (start, runEnd) => {
    let end = runEnd;
    while (end < text.length && end - runEnd < 2 && text[end] === '=') end++;
    if (end - start > MAX_CANDIDATE) return;
    const decoded = decodeBase64Text(text.slice(start, end));
    if (decoded === undefined) return;
    const inner = [...detectSecrets(decoded), ...findEncodedSecrets(decoded, detectSecrets, depth - 1)];
    if (inner.length > 0) {
      const type = inner[0].type.startsWith('base64_') ? inner[0].type : `base64_${inner[0].type}`;
      found.push({ type, start, end });
    }
  });
  return found;
}
