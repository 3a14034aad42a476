// A clause that says when or why, after the need ("validate an IBAN before sending a bank transfer", "autocomplete
// addresses as users type in a checkout form"): its words name the occasion (a transfer, a checkout), not the skill.
// Pure; one Set lookup a word, so linear in the request.
import { PACKAGING } from './near-duplicates.js';
import { contentWordCount } from './query-terms.js';

/** Words that open such a clause anywhere but at a request's start ("when does…" asks). */
const OPENERS: ReadonlySet<string> = new Set([
  'before',
  'after',
  'when',
  'whenever',
  'while',
  'because',
  'once',
  'until',
]);
/** `as` opens one only before its subject ("as users type"); "save it as a PDF" names a format. */
const SUBJECTS: ReadonlySet<string> = new Set([
  'i',
  'we',
  'you',
  'they',
  'he',
  'she',
  'it',
  'users',
  'customers',
  'people',
]);

const bare = (word: string) => word.toLowerCase().replace(/[^\p{L}]/gu, '');

/**
 * Content words (besides packaging such as `api`) the need must keep for the clause to go: "alert me when my site goes
 * down" and "notify me before my certificate expires" ask for what their clause says.
 */
const MIN_NEED_WORDS = 2;

/**
 * The request without its clauses of when or why (each to its sentence's end), or the request when none follows its
 * need or the need alone says too little.
 */
export function withoutSubordinateClause(request: string): string {
  const words = request.split(/\s+/).filter((w) => w !== '');
  const kept: string[] = [];
  let inClause = false;
  for (let i = 0; i < words.length; i++) {
    const word = words[i] as string;
    const opens = i > 1 && (OPENERS.has(bare(word)) || (bare(word) === 'as' && SUBJECTS.has(bare(words[i + 1] ?? ''))));
    if (opens) inClause = true;
    if (!inClause) kept.push(word);
    if (inClause && /[.?!;]$/.test(word)) inClause = false;
  }
  const need = kept.join(' ');
  return kept.length < words.length && contentWordCount(need, PACKAGING) >= MIN_NEED_WORDS ? need : request;
}
