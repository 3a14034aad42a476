import { charClass, runsOf } from './runs.js';
import type { Finding } from './types.js';

/** Base64 and base64url characters; padding is taken separately, at the end of a run. */
const BASE64_CHARS = charClass('A-Za-z0-9+/_-');
const MIN_CANDIDATE = 16;
const MAX_CANDIDATE = 8_192;

/** The value of each base64 and base64url character (both alphabets, as Buffer reads either), -1 for others. */
const VALUE = new Int8Array(128).fill(-1);
for (const [i, c] of [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'].entries())
  VALUE[c.charCodeAt(0)] = i;
VALUE['-'.charCodeAt(0)] = 62;
VALUE['_'.charCodeAt(0)] = 63;
const isPrintable = (b: number): boolean =>
  (b >= 0x20 && b < 0x7f) || b === 0x09 || b === 0x0a || b === 0x0d || b >= 0x80;
/** Decoded bytes of the candidate being read; a candidate decodes to at most 3/4 of MAX_CANDIDATE bytes. */
const bytes = Buffer.alloc(MAX_CANDIDATE);

/**
 * Decoded text if `s` is base64 of mostly printable UTF-8, else undefined. `s` holds base64 characters only,
 * padding at the end. Decoded here rather than by `Buffer.from`: most candidates are tokens whose bytes fail the
 * printable test within a few characters, and a call into Buffer costs more than reading them.
 */
export function decodeBase64Text(s: string): string | undefined {
  // Base64 of text of this length always mixes cases and digits; requiring all three skips identifiers cheaply.
  if (!/[a-z]/.test(s) || !/[A-Z]/.test(s) || !/\d/.test(s) || s.length % 4 === 1) return undefined;
  let chars = s.length;
  while (chars > 0 && s.charCodeAt(chars - 1) === 61) chars--; // '=' padding
  const length = Math.floor((chars * 6) / 8); // a trailing partial byte is dropped, as Buffer drops it
  if (length < 8) return undefined;
  // At least 95% printable: give up as soon as more than 5% of the bytes are not.
  const allowed = length - Math.ceil(length * 0.95);
  let unprintable = 0;
  let acc = 0;
  let bits = 0;
  let n = 0;
  for (let i = 0; i < chars; i++) {
    acc = ((acc << 6) | VALUE[s.charCodeAt(i)]) & 0xffffff;
    bits += 6;
    if (bits < 8) continue;
    bits -= 8;
    const b = (acc >> bits) & 0xff;
    if (!isPrintable(b) && ++unprintable > allowed) return undefined;
    bytes[n++] = b;
  }
  const decoded = bytes.toString('utf8', 0, n);
  return decoded.includes('\ufffd') ? undefined : decoded;
}

/**
 * Base64 blobs whose decoded text holds a secret, decoding nested base64 up to `depth` levels. The whole encoded
 * original is reported, typed after the secret inside it. `runs`, if given, are the text's `tokenRuns`: every
 * candidate lies inside one, since their characters include base64's and they are as long.
 */
export function findEncodedSecrets(
  text: string,
  detectSecrets: (s: string) => Finding[],
  depth = 2,
  runs: readonly number[] = [0, text.length],
): Finding[] {
  if (depth <= 0) return [];
  const found: Finding[] = [];
  runsOf(
    text,
    BASE64_CHARS,
    MIN_CANDIDATE,
    (start, runEnd) => {
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
    },
    runs,
  );
  return found;
}
