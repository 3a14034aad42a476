// Direction of a conversion for fused search: "speech to text" and "text to speech" hold the same words, so BM25 and
// the sentence model rank a text-to-speech skill first for a transcription request, and a JSON-to-CSV converter for
// "CSV to JSON". A record that names the request's conversion the other way round, or one that ends where the
// request's starts or starts where it ends ("anything to Markdown", "JSON to JSONP" for "Markdown to HTML", "CSV to
// JSON"), and never the request's own, is a near-miss whatever its score. Pure.
import { textWords } from './query-expansion.js';
import { lightStem } from './term-coverage.js';

/** Words that end or start a phrase, not a thing converted ("send it to Slack", "to the cloud"). */
const NOT_ENDS = new Set([
  'a',
  'an',
  'the',
  'my',
  'our',
  'your',
  'it',
  'them',
  'this',
  'that',
  'me',
  'us',
  'and',
  'or',
]);
/** `text2speech`, `pdf2docx`. */
const GLUED = /^([a-z]{2,})2([a-z]{2,})$/;

/**
 * The ordered pairs "from to" that `text` names, as light stems: "X to Y", "X into Y", "X-to-Y" and "X2Y" (words of
 * two letters or more, neither an article nor a pronoun).
 */
export function conversionPairs(text: string): string[] {
  const words = textWords(text);
  const pairs = new Set<string>();
  const add = (from: string, to: string) => {
    if (from.length < 2 || to.length < 2 || NOT_ENDS.has(from) || NOT_ENDS.has(to) || from === to) return;
    pairs.add(`${lightStem(from)}>${lightStem(to)}`);
  };
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if ((w === 'to' || w === 'into') && i > 0 && i + 1 < words.length) add(words[i - 1]!, words[i + 1]!);
    const glued = GLUED.exec(w);
    if (glued) add(glued[1]!, glued[2]!);
  }
  return [...pairs];
}

/** Whether `record` names one of the `request`'s conversions (conversionPairs) the other way round, and none its way. */
export function offPathConversion(request: readonly string[], record: readonly string[]): boolean {
  if (request.length === 0 || record.length === 0) return false;
  const held = new Set(record);
  if (request.some((p) => held.has(p))) return false;
  const ends = record.map((p) => p.split('>'));
  return request.some((p) => {
    const [from, to] = p.split('>');
    return ends.some(([f, t]) => t === from || f === to);
  });
}
