/**
 * A view of the text with JSON string escapes decoded (`\"`, `\\`, `\n`, `\uXXXX`...), and a map back to the
 * original offsets. Transcripts are JSON lines, often with JSON nested inside strings, so a secret such as
 * `\"password\":\"hunter2\"` or a `\n`-joined `.env` file only looks like itself once decoded.
 *
 * The map is kept per escape (where it sits in the decoded text, and how many characters it saved), so building a
 * view costs a little per escape rather than per character.
 */
export interface DecodedView {
  text: string;
  /** Original offset of a decoded offset; the decoded length maps to the original length. */
  toOriginal(offset: number): number;
}

/** Decoded char code of `\x` by the code of x, -1 where JSON has no such escape. */
const SIMPLE = new Int16Array(128).fill(-1);
for (const [k, v] of Object.entries({ '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' })) {
  SIMPLE[k.charCodeAt(0)] = v.charCodeAt(0);
}
const ASCII = Array.from({ length: 128 }, (_, c) => String.fromCharCode(c));
const isHex = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);

/** Decodes one level of JSON escapes; unknown escapes are kept verbatim. Returns undefined when nothing changes. */
export function decodeJsonEscapes(text: string): DecodedView | undefined {
  let i = text.indexOf('\\');
  if (i < 0) return undefined;
  // Per escape: its decoded offset, and the characters saved by it and every escape before it.
  let at = new Int32Array(256);
  let saved = new Int32Array(256);
  let count = 0;
  let total = 0;
  // Built by concatenation: V8 joins the pieces once, when the text is first searched, cheaper than parts.join.
  let out = '';
  let outLength = 0;
  let from = 0;
  while (i >= 0 && i + 1 < text.length) {
    const next = text.charCodeAt(i + 1);
    let code = next < 128 ? SIMPLE[next] : -1;
    let width = 2;
    if (code < 0 && next === 117 && i + 5 < text.length) {
      if (
        isHex(text.charCodeAt(i + 2)) &&
        isHex(text.charCodeAt(i + 3)) &&
        isHex(text.charCodeAt(i + 4)) &&
        isHex(text.charCodeAt(i + 5))
      ) {
        code = Number.parseInt(text.slice(i + 2, i + 6), 16);
        width = 6;
      }
    }
    if (code < 0) {
      i = text.indexOf('\\', i + 1);
      continue;
    }
    out += text.slice(from, i) + (code < 128 ? ASCII[code] : String.fromCharCode(code));
    outLength += i - from;
    if (count === at.length) {
      const grownAt = new Int32Array(count * 2);
      grownAt.set(at);
      at = grownAt;
      const grownSaved = new Int32Array(count * 2);
      grownSaved.set(saved);
      saved = grownSaved;
    }
    total += width - 1;
    at[count] = outLength;
    saved[count] = total;
    count++;
    outLength += 1;
    from = i + width;
    i = text.indexOf('\\', from);
  }
  if (count === 0) return undefined;
  out += text.slice(from);
  return {
    text: out,
    toOriginal(offset: number): number {
      // Escapes decoded before `offset`: each moved everything after it left by the characters it saved.
      let lo = 0;
      let hi = count;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (at[mid] < offset) lo = mid + 1;
        else hi = mid;
      }
      return lo === 0 ? offset : offset + saved[lo - 1];
    },
  };
}

/** Up to `depth` successively decoded views (JSON inside JSON needs two), each mapping to the original text. */
export function decodedViews(text: string, depth = 2): DecodedView[] {
  const views: DecodedView[] = [];
  let current = decodeJsonEscapes(text);
  while (current && views.length < depth) {
    views.push(current);
    if (views.length === depth) break;
    const outer: DecodedView = current;
    const inner = decodeJsonEscapes(outer.text);
    current = inner && { text: inner.text, toOriginal: (offset: number) => outer.toOriginal(inner.toOriginal(offset)) };
  }
  return views;
}
