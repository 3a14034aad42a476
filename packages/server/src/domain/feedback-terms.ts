// Pseudo-relevance feedback for fused search: the words that several of a request's first answers share, and that
// are rare among its other candidates, say in the catalog's own words what the request is about ("read this paragraph
// aloud" -> speech, tts); a ranking of those words finds records that share them but none of the request's words. Pure.
import { matchForm, textWords } from './query-expansion.js';
import { queryTerms } from './query-terms.js';

export interface FeedbackOptions {
  /** The first records (best first) whose shared words are taken. */
  readonly docs: number;
  /** A word counts when at least this many of those records hold it. */
  readonly minDocs: number;
  /** ...and at most this many of all the records given (a word most candidates hold says nothing). */
  readonly maxPool: number;
  /** Words returned at most. */
  readonly max: number;
  /** Words never returned (lower case): words every kind of record uses. */
  readonly ignore?: ReadonlySet<string>;
}

/** Words shorter than this are left out (`io`, `js`, `uk`). */
export const MIN_FEEDBACK_WORD = 3;

/**
 * The feedback words of `request` from `records` (the text of each candidate, best first; the first `docs` are read
 * as relevant, all of them as the pool): content words (queryTerms) of MIN_FEEDBACK_WORD letters or more that are
 * neither the request's own nor in `ignore`, held by at least `minDocs` of the first `docs` records and by at most `maxPool` of all; ordered
 * by how many of the first records hold them, then by how few of the pool do, then by first appearance.
 */
export function feedbackTerms(request: string, records: readonly string[], opts: FeedbackOptions): string[] {
  const asked = new Set(textWords(request).flatMap((w) => [w, matchForm(w)]));
  const words = records.map(
    (text) =>
      new Set(
        queryTerms(text).filter(
          (w) => w.length >= MIN_FEEDBACK_WORD && !asked.has(matchForm(w)) && !asked.has(w) && !opts.ignore?.has(w),
        ),
      ),
  );
  const count = (held: ReadonlyArray<ReadonlySet<string>>) => {
    const n = new Map<string, number>();
    for (const set of held) for (const w of set) n.set(w, (n.get(w) ?? 0) + 1);
    return n;
  };
  const inPool = count(words);
  return [...count(words.slice(0, opts.docs))]
    .filter(([w, n]) => n >= opts.minDocs && inPool.get(w)! <= opts.maxPool)
    .sort((a, b) => b[1] - a[1] || inPool.get(a[0])! - inPool.get(b[0])!)
    .slice(0, opts.max)
    .map(([w]) => w);
}
