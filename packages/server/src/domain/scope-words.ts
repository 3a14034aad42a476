// Scope adjectives: a language or nationality written before the noun it qualifies ("a British English voice",
// "Japanese text to speech", "Spanish subtitles") says in which language or for which place, not which capability;
// searched for, it matches records named after it (`british-national-bibliography`, `english-random-words`). Pure;
// one Set lookup a word, so linear in the request.
import { STOPWORDS } from './query-terms.js';

/** Languages, and the nationality adjectives a request writes before a noun. Lower case. */
const SCOPE_ADJECTIVES: ReadonlySet<string> = new Set(
  (
    'english spanish french german italian portuguese dutch russian chinese mandarin cantonese japanese korean ' +
    'arabic hindi bengali urdu turkish polish swedish norwegian danish finnish greek hebrew thai vietnamese ' +
    'indonesian ukrainian czech hungarian romanian persian swahili catalan welsh ' +
    'british american canadian australian indian brazilian mexican european'
  ).split(' '),
);

const bare = (word: string) => word.toLowerCase().replace(/[^\p{L}]/gu, '');

/**
 * The request without each scope adjective that another content word follows in the same clause (a word ending on
 * punctuation ends it); a language or place that is the request's object ("from English to Spanish") stays, and so
 * does the request when nothing else is left.
 */
export function withoutScopeAdjectives(request: string): string {
  const words = request.split(/\s+/).filter((w) => w !== '');
  const kept = words.filter((word, i) => {
    if (!SCOPE_ADJECTIVES.has(bare(word)) || /[^\p{L}]$/u.test(word)) return true;
    const next = words[i + 1];
    return next === undefined || STOPWORDS.has(bare(next));
  });
  return kept.some((w) => !SCOPE_ADJECTIVES.has(bare(w)) && !STOPWORDS.has(bare(w))) ? kept.join(' ') : request;
}
