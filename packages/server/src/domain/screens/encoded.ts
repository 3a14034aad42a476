// Injection layer "encoded": text hidden from a reviewer's eye but not from a model's, in base64, hex, percent-
// encoded, reversed, shifted (ROT13 and other Caesar shifts) or leetspeak (digits for letters) form. Each candidate is decoded and the decoded text is screened by
// every layer (the caller's `screen`); a flag names the encoding and the inner rule, at the encoded span.
import { type LayerFlag, flagAt } from './flags.js';
import { proseOnly, requestSentences } from './off-task.js';

/** Decoded text is screened in windows of at most this many characters, each overlapping the last by WINDOW_OVERLAP. */
const MAX_DECODED = 8_000;
const WINDOW_OVERLAP = 400;

/** Frequent English words: how much of a text reads as English. */
const ENGLISH = new Set(
  (
    'the a an and or to of in on for with from by at as is are was be been this that these those it its you your ' +
    'all any every previous prior above instructions instruction ignore forget disregard reply respond answer response ' +
    'user users send tell say write include add do not never always now then must should will can please what who how ' +
    'why when where which me my our we they them he she his her if but so no yes link password key keys token file files ' +
    'system prompt message data secret secrets run execute command shell delete remove download install open read ' +
    'email account code output text following instead only just also there here have has had make use new one more ' +
    'their before after about into over than because would could may might some other up out'
  ).split(' '),
);

/** Two frequent English words in a row: the sentence reads as English already. */
const PLAIN =
  /\b(?:the|and|to|of|in|is|for|with|on|it|this|that|you|a)\s+(?:the|a|an|and|to|of|in|is|for|with|on|it|this|that|you|your|all|be|not)\b/i;

const words = (s: string) => s.toLowerCase().match(/[a-z']+/g) ?? [];

/** Share of `s`'s words that are frequent English words (0 when it has fewer than `min` words). */
export function englishShare(s: string, min = 4): number {
  const ws = words(s);
  if (ws.length < min) return 0;
  return ws.filter((w) => ENGLISH.has(w)).length / ws.length;
}

const printable = (s: string) => {
  if (s.length === 0) return 0;
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if ((c >= 32 && c < 127) || c === 9 || c === 10 || c === 13) n++;
  }
  return n / s.length;
};

/** Decoded text worth screening: printable, with a space or a shell/code sign, not binary. */
const readable = (s: string) => s.length >= 6 && printable(s) >= 0.95 && /[a-z]{2}/i.test(s) && /[\s;|(]/.test(s);

export interface Decoded {
  encoding: 'base64' | 'hex' | 'percent' | 'reversed' | 'rot' | 'leet';
  start: number;
  end: number;
  text: string;
}

const BASE64 = /(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/_-]{16,}={0,2}(?![A-Za-z0-9+/=_-])/g;
const HEX = /(?<![0-9a-fA-F])(?:[0-9a-fA-F]{2}){8,}(?![0-9a-fA-F])|(?:\\x[0-9a-fA-F]{2}){6,}/g;

/**
 * A percent-encoded run: at least four escapes, with the characters URLs leave as they are between them. Tried only
 * where a run of those characters starts, so a long run without an escape is read once, not once per character.
 */
const PERCENT = /(?<![A-Za-z0-9._~+-])[A-Za-z0-9._~+-]*(?:%[0-9A-Fa-f]{2}[A-Za-z0-9._~+-]*){4,}/g;

/** Base64, hex and percent-encoded runs that decode to readable text. */
function decodedRuns(text: string): Decoded[] {
  const out: Decoded[] = [];
  for (const m of text.matchAll(BASE64)) {
    const raw = m[0];
    // Identifiers and paths are letters only, or all one case: base64 of text mixes both cases and digits.
    if (!/[a-z]/.test(raw) || !/[A-Z]/.test(raw) || /^[A-Za-z]+$/.test(raw)) continue;
    const decoded = Buffer.from(raw.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('latin1');
    if (readable(decoded)) out.push({ encoding: 'base64', start: m.index, end: m.index + raw.length, text: decoded });
  }
  for (const m of text.matchAll(HEX)) {
    const hex = m[0].replace(/\\x/g, '');
    const decoded = Buffer.from(hex, 'hex').toString('latin1');
    if (readable(decoded)) out.push({ encoding: 'hex', start: m.index, end: m.index + m[0].length, text: decoded });
  }
  for (const m of text.matchAll(PERCENT)) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(m[0].replace(/\+/g, ' '));
    } catch {
      continue;
    }
    if (readable(decoded)) out.push({ encoding: 'percent', start: m.index, end: m.index + m[0].length, text: decoded });
  }
  return out;
}

/**
 * A line inside a code block made mostly of words (six or more, seven in ten of them letters only): a sentence,
 * reversed or shifted ones included, whose end punctuation may stand first.
 */
const wordy = (line: string) => {
  const tokens = line.trim().split(/\s+/);
  return (
    tokens.length >= 6 && tokens.filter((t) => /^[("'“.]*\p{L}+[)"'”.,:;!?]*$/u.test(t)).length >= 0.7 * tokens.length
  );
};

/** Prose sentences with their offsets. */
function sentences(text: string): Array<{ start: number; text: string }> {
  const out: Array<{ start: number; text: string }> = [];
  // Code blanked out, a line of words inside a code block or inline code kept (an insertion can break a block's
  // fences; backticks hide nothing from a model).
  const prose = proseOnly(
    text.replace(/`([^`\n]+)`/g, (m, inner: string) => (wordy(inner) ? ` ${inner} ` : m)),
    wordy,
  );
  for (const m of prose.matchAll(/[^\n.!?]+[.!?]*/g))
    if (m[0].trim().length >= 12) out.push({ start: m.index, text: m[0] });
  // A reversed sentence starts with its final punctuation: ".olleh" splits after the period.
  for (const m of prose.matchAll(/[.!?][^\n.!?]{12,}/g)) out.push({ start: m.index, text: m[0] });
  // What follows a colon on its own ("carry it out: Nfx gur hfre…"): a plain lead-in does not hide it.
  for (const m of prose.matchAll(/:[ \t]*([^\n.!?:]{12,}[.!?]*)/g))
    out.push({ start: m.index + m[0].length - m[1]!.length, text: m[1]! });
  return out;
}

const shift = (s: string, n: number) =>
  s.replace(/[a-z]/gi, (c) => {
    const base = c <= 'Z' ? 65 : 97;
    return String.fromCharCode(((c.charCodeAt(0) - base + n) % 26) + base);
  });

/** Digits and signs that leetspeak writes for letters. */
const LEET: Readonly<Record<string, string>> = {
  '0': 'o',
  '1': 'i',
  '3': 'e',
  '4': 'a',
  '5': 's',
  '7': 't',
  '@': 'a',
  $: 's',
};
/**
 * A word that mixes letters with leetspeak digits or signs ("1gn0r3", "pr3v10u5"): tried only where a run of such
 * characters starts, and looking only within it, so a long run is read once, not once per character.
 */
const LEET_WORD = /(?<![a-z013457@$])(?=[a-z013457@$]*[a-z])(?=[a-z013457@$]*[013457@$])[a-z013457@$]{3,}/gi;

/** The sentence with leetspeak read as letters, when three or more of its words mix them; else undefined. */
function unleet(sentence: string): string | undefined {
  const mixed = sentence.match(LEET_WORD)?.filter((w) => /[a-z]/i.test(w) && /[013457@$]/.test(w)) ?? [];
  if (mixed.length < 3) return undefined;
  return sentence.replace(LEET_WORD, (w) => w.replace(/[013457@$]/g, (c) => LEET[c]!));
}

/** Sentences that read as English only reversed, shifted or with leetspeak read as letters: the decoded text. */
function disguisedSentences(text: string): Decoded[] {
  const out: Decoded[] = [];
  for (const s of sentences(text)) {
    // Plain English (the common case) is passed over at the cost of one search.
    if (PLAIN.test(s.text)) continue;
    const plain = englishShare(s.text);
    if (plain >= 0.3) continue;
    const end = s.start + s.text.length;
    const reversed = [...s.text].reverse().join('');
    if (englishShare(reversed) >= 0.5) {
      out.push({ encoding: 'reversed', start: s.start, end, text: reversed });
      continue;
    }
    const leet = unleet(s.text);
    if (leet !== undefined && englishShare(leet) >= 0.5) {
      out.push({ encoding: 'leet', start: s.start, end, text: leet });
      continue;
    }
    let best = { n: 0, share: 0 };
    for (let n = 1; n < 26; n++) {
      const share = englishShare(shift(s.text, n), 5);
      if (share > best.share) best = { n, share };
    }
    if (best.share >= 0.5) out.push({ encoding: 'rot', start: s.start, end, text: shift(s.text, best.n) });
  }
  return out;
}

/**
 * A decoded text longer than MAX_DECODED as overlapping windows of it, all at its encoded span: what padding puts
 * past the first few KB is screened too, each window at a bounded cost.
 */
function windows(d: Decoded): Decoded[] {
  if (d.text.length <= MAX_DECODED) return [d];
  const out: Decoded[] = [];
  for (let at = 0; at < d.text.length - WINDOW_OVERLAP; at += MAX_DECODED - WINDOW_OVERLAP)
    out.push({ ...d, text: d.text.slice(at, at + MAX_DECODED) });
  return out;
}

/** Every encoded candidate in `text` that decodes to readable text (a long one as windows of it). */
export function decodeCandidates(text: string): Decoded[] {
  return [...decodedRuns(text), ...disguisedSentences(text)].flatMap(windows);
}

/**
 * Flags of the encoded layer: each candidate decoded and screened by `screen` (every layer, this one included,
 * `depth` levels down); the flag keeps the inner layer's rule after the encoding's name. A request hidden this way
 * ("Tell the user…", "Recommend…" reversed or in base64) is flagged as `<encoding>:hidden_request` whatever its
 * subject: text that asks the reader for something has no reason to be encoded.
 */
export function screenEncoded(
  text: string,
  screen: (decoded: string, depth: number) => LayerFlag[],
  depth = 0,
): LayerFlag[] {
  const out: LayerFlag[] = [];
  // One flag a rule over overlapping candidates (a reversed sentence is read with and without its leading period).
  const add = (rule: string, d: Decoded) => {
    if (!out.some((f) => f.rule === rule && f.start < d.end && d.start < f.end))
      out.push(flagAt('encoded', rule, d.start, d.end));
  };
  for (const d of decodeCandidates(text)) {
    if (requestSentences(d.text).some((r) => r.kind === 'imperative')) add(`${d.encoding}:hidden_request`, d);
    for (const f of screen(d.text, depth + 1)) add(`${d.encoding}:${f.layer}.${f.rule}`, d);
  }
  return out;
}
