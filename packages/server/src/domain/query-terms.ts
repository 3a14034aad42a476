// The content words of a request: what the lexical rankers search for and what term coverage counts. Pure.
import { textWords } from './query-expansion.js';

/**
 * Words that say nothing about a capability: English function words, request filler, and the agent clients a
 * request names as its context ("connect Claude to my Notion"), which records that merely mention them would match.
 */
export const STOPWORDS: ReadonlySet<string> = new Set(
  (
    'a about above after again all also am an and any are as at be been before being below between both but by can ' +
    'could did do does doing down during each few for from further get gets give had has have having he her here hers ' +
    'him his how i if in into is it its just let lets like many me more most much my need needs no nor not now of off on once ' +
    'only or other our ours out over own please same she should show so some something such than that the their ' +
    'theirs them then there these they this those through to too under until up us use using very want wants was we ' +
    'way best easiest easy simplest good able tool tools automatically ' +
    'were what when where which while who whom why will with would you your yours ' +
    'claude cursor codex chatgpt copilot windsurf cline connect hook'
  ).split(' '),
);

/**
 * Who asks, not what for: "give my agent access to…", "I want my assistant to…" name the requester; searched for,
 * `agent` matches every record "for AI agents". Dropped only after `my` / `our`, so "an agent framework" keeps it.
 */
const REQUESTERS = new Set(['agent', 'agents', 'assistant', 'assistants']);
const OWNERS = new Set(['my', 'our']);

export const MAX_QUERY_TERMS = 32;
const MAX_TERM_LENGTH = 64;

/** Distinct lower-case terms of `text`, stopwords dropped (unless nothing else is left), at most MAX_QUERY_TERMS. */
export function queryTerms(text: string): string[] {
  // Accents kept: both stores' indexes fold them as SQLite's tokenizer does, a Latin letter's only; textWords' folding
  // of every mark would turn a request's `й` into an `и` no record holds.
  const words = textWords(text, false);
  const own = words.filter((w, i) => !(REQUESTERS.has(w) && i > 0 && OWNERS.has(words[i - 1]!)));
  const distinct = [...new Set(own.map((w) => w.slice(0, MAX_TERM_LENGTH)))];
  const content = distinct.filter((w) => !STOPWORDS.has(w));
  return (content.length > 0 ? content : distinct).slice(0, MAX_QUERY_TERMS);
}

/** How many distinct content words (not stopwords) `text` holds outside `ignore`. */
export function contentWordCount(text: string, ignore: ReadonlySet<string>): number {
  return new Set(textWords(text, false).filter((w) => !STOPWORDS.has(w) && !ignore.has(w))).size;
}
