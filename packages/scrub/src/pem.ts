import type { Finding } from './types.js';

/**
 * Markers as PEM writes them, and as hand edits and renderers leave them: three to six dashes (a run of its own),
 * a space inside.
 */
const BEGIN = /(?<!-)-{3,6} ?BEGIN[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)? ?-{3,6}(?!-)/g;
const END = /(?<!-)-{3,6} ?END[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)? ?-{3,6}(?!-)/g;
/** Body characters when the END marker is missing (truncated tool output): base64, whitespace and literal `\n`. */
const BODY = /(?:[A-Za-z0-9+/=\s:,-]|\\[nr])*/y;
const MAX_KEY_LENGTH = 16_384;

/**
 * PEM private keys (RSA, EC, OpenSSH, PGP, PKCS#8) and PuTTY key files, including ones inside JSON strings. END markers are located
 * once and paired with BEGIN markers in order, so a flood of BEGIN markers costs a single pass.
 */
export function findPrivateKeys(text: string): Finding[] {
  const putty = findPuttyKeys(text);
  if (!text.includes('PRIVATE KEY')) return putty;
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
  return putty.length ? [...putty, ...found].sort((a, b) => a.start - b.start) : found;
}

/** A PuTTY key file (.ppk) from its first line through its MAC line, bounded like a PEM key. */
const PUTTY =
  /PuTTY-User-Key-File-\d+:[^\n]{0,200}\n(?:(?!PuTTY-User-Key-File-)[^\n]{0,400}\n){0,120}?Private-MAC:[ \t]*[0-9a-fA-F]{0,128}/g;

/** PuTTY private keys: their Private-Lines hold the key in base64, without PEM markers. */
function findPuttyKeys(text: string): Finding[] {
  if (!text.includes('PuTTY-User-Key-File-')) return [];
  return [...text.matchAll(PUTTY)].map((m) => ({ type: 'private_key', start: m.index, end: m.index + m[0].length }));
}

/** A line of a key body as PEM writes it: base64 alone, a header of an encrypted key, or blank. */
const BODY_LINE = /^\s*(?:[A-Za-z0-9+/=]+|(?:Proc-Type|DEK-Info|Comment):[^\n]*)?\s*$/;
const LINE_BREAK = /\r?\n|\\r?\\n/g;
/** Base64 characters an END marker needs right before it to end a key rather than name the marker. */
const MIN_TAIL = 64;

/**
 * Keys cut at their head: an END marker that ends none of `keys` (findPrivateKeys), with the lines of base64
 * right before it, up to the first line that is not one. A transcript chunk that starts inside a key, or the
 * `tail` of a key file, holds most of the key and no BEGIN marker.
 */
export function findKeyTails(text: string, keys: readonly Finding[]): Finding[] {
  if (!text.includes('PRIVATE KEY')) return [];
  const found: Finding[] = [];
  let floor = 0;
  let k = 0;
  for (const m of text.matchAll(END)) {
    const end = m.index + m[0].length;
    while (k < keys.length && keys[k]!.end < end) k++;
    const inKey = k < keys.length && keys[k]!.start <= m.index;
    if (!inKey) {
      const from = Math.max(floor, m.index - MAX_KEY_LENGTH);
      const window = text.slice(from, m.index);
      // Line i runs from the end of break i - 1 (or the window's start) to the start of break i (or its end).
      const breaks = [...window.matchAll(LINE_BREAK)];
      let start = m.index;
      let base64 = 0;
      for (let i = breaks.length; i >= 0; i--) {
        const lineStart = i > 0 ? breaks[i - 1]!.index + breaks[i - 1]![0].length : 0;
        const line = window.slice(lineStart, i < breaks.length ? breaks[i]!.index : window.length);
        if (!BODY_LINE.test(line)) break;
        start = from + lineStart;
        if (!line.includes(':')) base64 += line.trim().length;
      }
      if (base64 >= MIN_TAIL) found.push({ type: 'private_key', start, end });
    }
    floor = end;
  }
  return found;
}
