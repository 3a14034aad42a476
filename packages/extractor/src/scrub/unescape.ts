/**
 * A view of the text with JSON string escapes decoded (`\"`, `\\`, `\n`, `\uXXXX`...), and a map back to the
 * original offsets. Transcripts are JSON lines, often with JSON nested inside strings, so a secret such as
 * `\"password\":\"hunter2\"` or a `\n`-joined `.env` file only looks like itself once decoded.
 */
export interface DecodedView {
  text: string;
  /** origin[i] is the original offset of decoded char i; origin[text.length] is the original length. */
  origin: Int32Array;
}

const SIMPLE: Readonly<Record<string, string>> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
const HEX4 = /^[0-9a-fA-F]{4}$/;

/** Decodes one level of JSON escapes; unknown escapes are kept verbatim. Returns undefined when nothing changes. */
export function decodeJsonEscapes(text: string): DecodedView | undefined {
  let i = text.indexOf('\\');
  if (i < 0) return undefined;
  // Copies the plain stretches between backslashes as slices: the common case stays close to memcpy speed.
  const parts: string[] = [];
  const origin = new Int32Array(text.length + 1);
  let out = 0;
  let from = 0;
  let changed = false;
  const copyPlain = (to: number) => {
    parts.push(text.slice(from, to));
    for (let k = from; k < to; k++) origin[out++] = k;
  };
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
    copyPlain(i);
    parts.push(decoded);
    origin[out++] = i;
    from = i + width;
    changed = true;
    i = text.indexOf('\\', from);
  }
  if (!changed) return undefined;
  copyPlain(text.length);
  origin[out] = text.length;
  return { text: parts.join(''), origin: origin.subarray(0, out + 1) };
}

/** Composes two views: `inner` decodes `outer.text`; the result maps straight to the text `outer` decodes. */
export function composeViews(outer: DecodedView, inner: DecodedView): DecodedView {
  const origin = new Int32Array(inner.origin.length);
  for (let i = 0; i < origin.length; i++) origin[i] = outer.origin[inner.origin[i]];
  return { text: inner.text, origin };
}

/** Up to `depth` successively decoded views (JSON inside JSON needs two). */
export function decodedViews(text: string, depth = 2): DecodedView[] {
  const views: DecodedView[] = [];
  let current: DecodedView | undefined = decodeJsonEscapes(text);
  while (current && views.length < depth) {
    views.push(current);
    const inner = decodeJsonEscapes(current.text);
    current = inner ? composeViews(current, inner) : undefined;
  }
  return views;
}
