/**
 * A view of the text with JSON string escapes decoded (`\"`, `\\`, `\n`, `\uXXXX`...), and a map back to the
 * original offsets. Transcripts are JSON lines, often with JSON nested inside strings, so a secret such as
 * `\"password\":\"hunter2\"` or a `\n`-joined `.env` file only looks like itself once decoded.
 *
 * The map is kept as segments (one per plain stretch and one per escape), so building a view costs a little per
 * escape rather than per character.
 */
export interface DecodedView {
  text: string;
  /** Original offset of a decoded offset; the decoded length maps to the original length. */
  toOriginal(offset: number): number;
}

const SIMPLE: Readonly<Record<string, string>> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
const HEX4 = /^[0-9a-fA-F]{4}$/;

/** Segment k starts at decoded offset dec[k] and original offset orig[k]; plain segments map one to one. */
function segmentMap(dec: number[], orig: number[], decodedLength: number, originalLength: number) {
  dec.push(decodedLength);
  orig.push(originalLength);
  return (offset: number): number => {
    let lo = 0;
    let hi = dec.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (dec[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    const next = orig[lo + 1] ?? originalLength;
    return Math.min(orig[lo] + (offset - dec[lo]), next);
  };
}

/** Decodes one level of JSON escapes; unknown escapes are kept verbatim. Returns undefined when nothing changes. */
export function decodeJsonEscapes(text: string): DecodedView | undefined {
  let i = text.indexOf('\\');
  if (i < 0) return undefined;
  const parts: string[] = [];
  const dec: number[] = [];
  const orig: number[] = [];
  let out = 0;
  let from = 0;
  while (i >= 0 && i + 1 < text.length) {
    const next = text[i + 1];
    let decoded: string | undefined = SIMPLE[next];
    let width = 2;
    if (decoded === undefined && next === 'u' && HEX4.test(text.slice(i + 2, i + 6))) {
      decoded = String.fromCharCode(Number.parseInt(text.slice(i + 2, i + 6), 16));
      width = 6;
    }
    if (decoded === undefined) {
      i = text.indexOf('\\', i + 1);
      continue;
    }
    if (i > from) {
      dec.push(out);
      orig.push(from);
      parts.push(text.slice(from, i));
      out += i - from;
    }
    dec.push(out);
    orig.push(i);
    parts.push(decoded);
    out += 1;
    from = i + width;
    i = text.indexOf('\\', from);
  }
  if (dec.length === 0) return undefined;
  if (from < text.length) {
    dec.push(out);
    orig.push(from);
    parts.push(text.slice(from));
    out += text.length - from;
  }
  return { text: parts.join(''), toOriginal: segmentMap(dec, orig, out, text.length) };
}

/** Up to `depth` successively decoded views (JSON inside JSON needs two), each mapping to the original text. */
export function decodedViews(text: string, depth = 2): DecodedView[] {
  const views: DecodedView[] = [];
  let current = decodeJsonEscapes(text);
  while (current && views.length < depth) {
    views.push(current);
    const outer: DecodedView = current;
    const inner = decodeJsonEscapes(outer.text);
    current = inner && { text: inner.text, toOriginal: (offset: number) => outer.toOriginal(inner.toOriginal(offset)) };
  }
  return views;
}
