// Word-shingle similarity of texts, shared by the server's near-duplicate screen and the extractor's local dedupe,
// so a draft the extractor keeps is compared exactly as the server will compare it.

/** Format and invisible characters (zero-width, bidi controls, tag characters, soft hyphen…). */
const INVISIBLE = /\p{Cf}/gu;
/** Typographic punctuation folded to its ASCII form, so quotes and dashes never split or merge shingles. */
const PUNCTUATION_FOLDS: ReadonlyArray<[RegExp, string]> = [
  [/[\u2018\u2019\u201a\u201b\u2032]/g, "'"],
  [/[\u201c\u201d\u201e\u201f\u2033]/g, '"'],
  [/[\u2010-\u2015\u2212]/g, '-'],
  [/\u2026/g, '...'],
];

/** NFKC, invisible characters removed, typographic punctuation folded, lower case, whitespace collapsed. */
export function normalizeForHash(text: string): string {
  let out = text.normalize('NFKC').replace(INVISIBLE, '');
  for (const [re, to] of PUNCTUATION_FOLDS) out = out.replace(re, to);
  return out.toLowerCase().replace(/\s+/gu, ' ').trim();
}

/**
 * Scripts written without spaces between words. A run of them would be one "word" per clause, so two texts that
 * differ by a character per clause would share no shingle: each of their letters counts as a word instead.
 */
const UNSPACED = '\\p{sc=Han}\\p{sc=Hiragana}\\p{sc=Katakana}\\p{sc=Thai}\\p{sc=Lao}\\p{sc=Khmer}\\p{sc=Myanmar}';
/** A letter of an unspaced script with its marks, or a run of other letters, marks, digits and underscores. */
const WORD = new RegExp(`(?=[${UNSPACED}])\\p{L}\\p{M}*|(?:(?![${UNSPACED}])[\\p{L}\\p{M}\\p{N}_])+`, 'gu');
const UNSPACED_LETTER = new RegExp(`(?=[${UNSPACED}])\\p{L}`, 'u');

/**
 * The words of normalised text: runs of letters, digits and underscores, all punctuation separating; in scripts
 * written without spaces (Chinese, Japanese, Thai…), each letter.
 */
export function words(text: string): string[] {
  return normalizeForHash(text).match(WORD) ?? [];
}

/** Whether `text` has a letter of a script written without spaces, whose words changed with them (see words). */
export function hasUnspacedScript(text: string): boolean {
  return UNSPACED_LETTER.test(text);
}

/**
 * Word k-shingles. A text shorter than k words gives one shingle of all its words, so short texts still
 * compare; an empty text gives the empty set.
 */
export function shingles(text: string, k = 3): Set<string> {
  if (!Number.isInteger(k) || k < 1) throw new RangeError(`k must be a positive integer, got ${k}`);
  const w = words(text);
  const out = new Set<string>();
  if (w.length < k) {
    if (w.length > 0) out.add(w.join(' '));
    return out;
  }
  for (let i = 0; i + k <= w.length; i++) out.add(w.slice(i, i + k).join(' '));
  return out;
}

/** |A ∩ B| / |A ∪ B|; two empty sets are identical (1). */
export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let inter = 0;
  for (const s of small) if (large.has(s)) inter++;
  return inter / (a.size + b.size - inter);
}
