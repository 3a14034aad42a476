// Term coverage for fused search: the share of a request's content words that a skill's record holds. BM25 sums
// per-word scores, so one request word in a short name ("photos", "city", "facts") can outrank a record that holds
// most of the request's words in its description; coverage favours the second kind. Pure.
import { textWords } from './query-expansion.js';

/** Suffixes a word loses before comparison (the first that fits, in this order): `geocoding` = `geocode`. */
const SUFFIXES = ['ions', 'ion', 'ings', 'ing', 'ers', 'ies', 'ed', 'er', 'es', 'ly', 's', 'e', 'y'];
/** A stem is never shorter than this, so short words stay whole. */
const MIN_STEM = 3;

/** A crude stem: the first listed suffix whose removal leaves at least MIN_STEM letters is removed. */
export function lightStem(word: string): string {
  for (const suffix of SUFFIXES)
    if (word.endsWith(suffix) && word.length - suffix.length >= MIN_STEM) return word.slice(0, -suffix.length);
  return word;
}

/** The distinct stems of `terms` (a request's content words, domain/query-terms.ts), accents dropped as textWords does. */
export const termStems = (terms: readonly string[]): string[] => [
  ...new Set(terms.flatMap((t) => textWords(t)).map(lightStem)),
];

/** The share of `stems` found among the stems of the words of `texts` (0 when there are no stems). */
export function termCoverage(stems: readonly string[], texts: readonly string[]): number {
  if (stems.length === 0) return 0;
  // A word stems to `s` only if it begins with `s`, and a stem is at least MIN_STEM letters unless its word is: so
  // only words beginning as some stem does are stemmed (the rest of a description's words, most, are not).
  const starts = new Set(stems.map(stemStart));
  const held = new Set<string>();
  for (const text of texts)
    for (const word of textWords(text)) if (starts.has(stemStart(word))) held.add(lightStem(word));
  return stems.filter((s) => held.has(s)).length / stems.length;
}

/** The first MIN_STEM letters of a word or stem (all of a shorter one). */
const stemStart = (word: string): string => word.slice(0, MIN_STEM);

/** A record's texts that coverage reads: its name, id, description and tags. */
export const recordTexts = (r: {
  name: string;
  id: string;
  description: string;
  tags: readonly string[];
}): string[] => [r.name, r.id, r.description, r.tags.join(' ')];

/**
 * Whether a record holds a request word only in its name or id (`Google Drive` for "driving directions"): its
 * description and tags hold none of the request's `stems` nor of the `added` stems (words the vocabulary added), so
 * the word names it without saying what it does for the request.
 */
export function namesake(
  stems: readonly string[],
  added: readonly string[],
  record: { name: string; id: string; description: string; tags: readonly string[] },
): boolean {
  return (
    termCoverage(stems, [record.name, record.id]) > 0 &&
    termCoverage([...stems, ...added], [record.description, record.tags.join(' ')]) === 0
  );
}
