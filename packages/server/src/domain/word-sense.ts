// Word senses for fused search: a request word of two senses ("events" in a message queue or on a stage, "contract"
// to sign or on a blockchain) pulls records of the other sense, held by that one word. The words the developer
// vocabulary added for the request's phrases ("message queue" -> kafka rabbitmq) say which sense the rest of the
// request fixed; a record that holds one request word and none of them is of the other sense. Pure.
import { votedCategory } from './category-vote.js';
import { recordTexts, termCoverage } from './term-coverage.js';

export interface SenseOptions {
  /** Request stems a request needs for one of them to be a minority of it. */
  minStems: number;
  /** Request stems beyond which a record holding one of them is common, and says nothing of its sense. */
  maxStems: number;
  /** The first this many records of the pool holding an added word vote for the sense's category... */
  voters: number;
  /** ...which at least this many of them must share (a majority). */
  quorum: number;
}

interface SenseRecord {
  id: string;
  name: string;
  description: string;
  tags: readonly string[];
  category?: string;
}

/**
 * The ids of `records` (a rerank's pool, best first) of another sense than the request's: each holds, in its name,
 * id, description and tags, exactly one of the request's `stems` (`minStems` to `maxStems` of them) and none of the `added`
 * stems (words the vocabulary added), and is outside the category that `quorum` of the first `voters` records holding
 * an added stem share (the sense's category; votedCategory). Empty when the vocabulary added nothing or those records
 * agree on no category.
 */
export function otherSense(
  stems: readonly string[],
  added: readonly string[],
  records: readonly SenseRecord[],
  { minStems, maxStems, voters, quorum }: SenseOptions,
): Set<string> {
  const other = new Set<string>();
  if (added.length === 0 || stems.length < minStems || stems.length > maxStems) return other;
  const holds = records.map((r) => termCoverage(added, recordTexts(r)) > 0);
  const sense = votedCategory(
    records.filter((_, i) => holds[i]).map((r) => r.category),
    voters,
    quorum,
  );
  if (sense === undefined) return other;
  records.forEach((r, i) => {
    if (!holds[i] && r.category !== sense && Math.round(termCoverage(stems, recordTexts(r)) * stems.length) === 1)
      other.add(r.id);
  });
  return other;
}
