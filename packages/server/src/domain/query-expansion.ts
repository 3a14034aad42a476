// Query expansion with a thesaurus: the plain words of a request ("files on my local disk") -> the words skill
// records use for it (`filesystem`). Pure: the thesaurus is compiled once, a query is expanded in one pass over
// its words, and what is added is never expanded again.

/**
 * Lower-case letter/digit runs of `text`, as SQLite's unicode61 tokenizer splits it; with `fold` (the default) accents
 * dropped as that tokenizer also does, so a request's `Pokémon` meets a record's `Pokemon` in every matcher.
 */
export function textWords(text: string, fold = true): string[] {
  // Neither normalization changes printable ASCII, the most of what is split here (every record, per search).
  if (PRINTABLE_ASCII.test(text)) return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const plain = fold ? text.normalize('NFKD').replace(/\p{M}+/gu, '') : text;
  return (
    plain
      .normalize('NFKC')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

const PRINTABLE_ASCII = /^[\t\n\r -~]*$/;

/** Words ending in `s` that are no plural, so keep it: `news` is not `new` ("create a new branch"). */
const NOT_PLURALS: ReadonlySet<string> = new Set(['news', 'lens', 'series', 'species', 'always', 'perhaps', 'towards']);

/** A word as thesaurus phrases are matched: a plural's final `s` dropped (`files` = `file`, not `status`). */
export const matchForm = (word: string): string =>
  word.length > 3 && word.endsWith('s') && !/(ss|us|is)$/.test(word) && !NOT_PLURALS.has(word)
    ? word.slice(0, -1)
    : word;

export interface Thesaurus {
  /** Phrase (its words' match forms joined by a space) -> the terms it adds. */
  readonly phrases: ReadonlyMap<string, readonly string[]>;
  /** Words in the longest phrase. */
  readonly longest: number;
}

/** Phrases longer than this are refused: matching tries every length up to the longest at each word. */
export const MAX_PHRASE_WORDS = 5;
/** Terms an expansion adds at most. */
export const MAX_EXPANSION_TERMS = 8;
/** Words of a request looked at (a longer request is its own context and needs no expansion). */
export const MAX_EXPANDED_WORDS = 64;

/**
 * Compiles lines `phrase | phrase => term term`. Refuses a line without phrases or terms, a phrase of more than
 * MAX_PHRASE_WORDS words, and a phrase on two lines (which of them would win would depend on the order). A phrase
 * with `to` between two words (a conversion: "speech to text", "pdf to markdown") also matches with `into` there
 * ("turn speech into text"), unless a line has that phrase itself.
 */
export function compileThesaurus(lines: readonly string[]): Thesaurus {
  const phrases = new Map<string, readonly string[]>();
  const intoForms = new Map<string, readonly string[]>();
  let longest = 0;
  for (const line of lines) {
    const [left, right, ...rest] = line.split('=>');
    const terms = [...new Set(textWords(right ?? ''))];
    const keys = (left ?? '').split('|').map((p) => textWords(p).map(matchForm));
    if (rest.length > 0 || terms.length === 0 || keys.some((k) => k.length === 0))
      throw new RangeError(`thesaurus line needs phrases => terms: ${line}`);
    for (const words of keys) {
      if (words.length > MAX_PHRASE_WORDS)
        throw new RangeError(`thesaurus phrase over ${MAX_PHRASE_WORDS} words: ${line}`);
      const key = words.join(' ');
      const known = phrases.get(key);
      if (known !== undefined && known !== terms) throw new RangeError(`thesaurus phrase on two lines: ${key}`);
      phrases.set(key, terms);
      longest = Math.max(longest, words.length);
      words.forEach((w, i) => {
        if (w === 'to' && i > 0 && i < words.length - 1)
          intoForms.set(words.map((v, j) => (j === i ? 'into' : v)).join(' '), terms);
      });
    }
  }
  for (const [key, terms] of intoForms) if (!phrases.has(key)) phrases.set(key, terms);
  return { phrases, longest };
}

/**
 * The thesaurus phrase (its terms) that `forms` hold at `at`: the longest whole phrase, else the longest phrase of
 * two or more words found there with one other word inside it ("execute Python code" holds "execute code", "convert
 * a CSV file" holds "convert a file"), and how many words a whole phrase covers (0 for a phrase with a word inside:
 * the words after its first stay free to match).
 */
function phraseAt(forms: readonly string[], at: number, thesaurus: Thesaurus): [readonly string[] | undefined, number] {
  for (let n = Math.min(thesaurus.longest, forms.length - at); n > 0; n--) {
    const terms = thesaurus.phrases.get(forms.slice(at, at + n).join(' '));
    if (terms !== undefined) return [terms, n];
  }
  for (let n = Math.min(thesaurus.longest, forms.length - at - 1); n > 1; n--)
    for (let inside = at + 1; inside < at + n; inside++) {
      const words = [...forms.slice(at, inside), ...forms.slice(inside + 1, at + n + 1)];
      const terms = thesaurus.phrases.get(words.join(' '));
      if (terms !== undefined) return [terms, 0];
    }
  return [undefined, 0];
}

/**
 * The terms `thesaurus` adds to `text`, at most `max`: phrases are matched left to right, the longest at each word
 * first, a whole phrase before one with a word inside it (phraseAt), without overlapping whole phrases; a term already
 * among the request's words (or added by an earlier phrase) is not added again. Terms are not looked up themselves,
 * so no expansion can loop or grow past one step. Cost: at most MAX_EXPANDED_WORDS x `longest`² map lookups.
 */
export function expansionTerms(text: string, thesaurus: Thesaurus, max = MAX_EXPANSION_TERMS): string[] {
  const words = textWords(text).slice(0, MAX_EXPANDED_WORDS);
  const forms = words.map(matchForm);
  const seen = new Set([...words, ...forms]);
  const added: string[] = [];
  for (let i = 0; i < forms.length && added.length < max; ) {
    const [terms, covered] = phraseAt(forms, i, thesaurus);
    for (const t of terms ?? []) {
      if (added.length === max) break;
      if (!seen.has(t)) {
        seen.add(t);
        added.push(t);
      }
    }
    i += Math.max(covered, 1);
  }
  return added;
}

/**
 * The text the sentence model embeds for a request the thesaurus expanded: the request, then its added terms in
 * brackets, so a request in plain words is also near records that use only the catalog's words or a product's name.
 */
export function expandedSentence(text: string, terms: readonly string[]): string {
  return terms.length === 0 ? text : `${text} (${terms.join(', ')})`;
}
