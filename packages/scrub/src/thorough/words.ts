import { lexicon } from './lexicon.js';

/**
 * What a word says about being part of a person's name:
 * - `name`: in the name lists and not an everyday English word (Nielsen, Katrine, Агата);
 * - `weak`: in the name lists and an everyday word too (Mark, Will, Rose);
 * - `unknown`: capitalised, in no list (Szöllösy, Puruntie);
 * - `common`: an everyday word, not a name;
 * - `technical`: a product, tool or identifier (Redis, useState, API), never part of a name;
 * - `place`: a place or organisation the gazetteer holds (Norway, Amsterdam, Ikea), never part of a name;
 * - `initial`: one capital letter (the J in `J. Park`);
 * - `lower`: any other lower-case or caseless word.
 */
export type WordKind = 'name' | 'weak' | 'unknown' | 'common' | 'technical' | 'place' | 'initial' | 'lower';

export interface Word {
  start: number;
  /** End of the word; a possessive `'s` is not part of it. */
  end: number;
  text: string;
  kind: WordKind;
  /** Capitalised (first letter upper case, some lower case after it). */
  cap: boolean;
  /** Written in a script without case (Arabic, Hebrew, CJK, Thai…), where capitals cannot mark a name. */
  caseless: boolean;
}

/** Letters, with inner apostrophes and hyphens (O'Brien, Jean-Luc), as one word. */
const WORD = /(?<![\p{L}\p{M}\p{N}_])[\p{L}\p{M}]+(?:['’-][\p{L}\p{M}]+)*(?![\p{L}\p{M}\p{N}_])/gu;
const UPPER = /^\p{Lu}/u;
const HAS_LOWER = /\p{Ll}/u;
const CASED = /^[\p{Lu}\p{Ll}\p{Lt}]/u;
const CASELESS = /^\p{Lo}/u;
/** A capital after a lower-case letter, as in identifiers (useState, GitHub); name prefixes are exempt. */
const INNER_CAPITAL = /\p{Ll}\p{Lu}/u;
const NAME_PREFIX = /^(?:Mc|Mac|O'|O’|D'|D’|Di|De|Da|Du|La|Le|Van|Von|Fitz)\p{Lu}\p{Ll}+$/u;
const POSSESSIVE = /['’]s$/u;
/** Contractions and pronouns are everyday words, whatever the name lists hold (I'm, They're, He: a surname too). */
const CONTRACTION = /['’](?:m|re|ve|ll|d|t)$/u;
const PRONOUNS = new Set('he she it we you they me him her us them his hers its our ours their theirs'.split(' '));
/** The pronoun `I`, not an initial: a lower-case word follows it (`Can I pay`, not `John I Smith`). */
const PRONOUN_I = /^[ \t]+\p{Ll}/u;
/** Surname endings common enough to count as a name the lists lack (Vassiliev, Bošnjak is not one). */
const SURNAME_ENDING = new RegExp(
  String.raw`\p{Ll}(?:ov|ova|ev|eva|ovich|evich|ovna|evna|vić|vic|ić|sson|dóttir|dottir|poulos|opoulou|escu|enko|` +
    `shvili|adze|ainen|inen|ski|ska|sky|skaya|wicz|czyk|yev|yeva|oğlu|zadeh)$`,
  'u',
);

/** Kinds of words seen lately: texts repeat their words. Cleared when full, so its memory stays bounded. */
const kinds = new Map<string, WordKind>();
const MAX_CACHED = 50_000;

export function classify(text: string): WordKind {
  let kind = kinds.get(text);
  if (kind === undefined) {
    if (kinds.size >= MAX_CACHED) kinds.clear();
    kind = classifyUncached(text);
    kinds.set(text, kind);
  }
  return kind;
}

function classifyUncached(text: string): WordKind {
  const lex = lexicon();
  const lower = text.toLowerCase();
  if (text.length === 1) return UPPER.test(text) ? 'initial' : 'lower';
  if (PRONOUNS.has(lower) || CONTRACTION.test(text)) return 'common';
  if (lex.technical.has(lower)) return 'technical';
  const cased = CASED.test(text);
  if (cased && !HAS_LOWER.test(text)) return 'technical';
  if (INNER_CAPITAL.test(text) && !NAME_PREFIX.test(text)) return 'technical';
  if (lex.places.has(lower)) return 'place';
  const named = lex.firstNames.has(lower) || lex.surnames.has(lower) || (!cased && surnameThenGiven(lower));
  const common = lex.common.has(lower);
  if (named) return common ? 'weak' : 'name';
  if (common) return 'common';
  if (!cased || !UPPER.test(text)) return 'lower';
  return text.length >= 5 && SURNAME_ENDING.test(text) ? 'name' : 'unknown';
}

/** Whether a word of a caseless script is a known surname and given name written together (王伟宸, 김민준). */
function surnameThenGiven(word: string): boolean {
  const { firstNames, surnames } = lexicon();
  if (word.length > 5) return false;
  for (const cut of [1, 2]) {
    if (cut < word.length && surnames.has(word.slice(0, cut)) && firstNames.has(word.slice(cut))) return true;
  }
  return false;
}

/** The words of `text` in order, each classified. Linear in the text's length. */
export function words(text: string): Word[] {
  const out: Word[] = [];
  WORD.lastIndex = 0;
  for (let m = WORD.exec(text); m; m = WORD.exec(text)) {
    let w = m[0];
    if (POSSESSIVE.test(w) && w.length > 3) w = w.slice(0, -2);
    const cap = UPPER.test(w) && HAS_LOWER.test(w);
    const caseless = CASELESS.test(w);
    const end = m.index + w.length;
    const kind = w === 'I' && PRONOUN_I.test(text.slice(end, end + 3)) ? 'common' : classify(w);
    out.push({ start: m.index, end, text: w, kind, cap, caseless });
  }
  markPlacePhrases(text, out);
  return out;
}

const MAX_PLACE_WORDS = 4;

/**
 * Words that together name a place or organisation the gazetteer holds (Wells Fargo, Goldman Sachs, Kuala Lumpur),
 * each word of the phrase capitalised and one space apart, become `place` words, so no pass takes one of them for
 * a name. Longest phrase first.
 */
function markPlacePhrases(text: string, ws: Word[]): void {
  const { places } = lexicon();
  for (let i = 0; i + 1 < ws.length; i++) {
    if (!ws[i].cap) continue;
    // How many capitalised words, one space apart, go on from ws[i].
    let n = 1;
    while (n < MAX_PLACE_WORDS && i + n < ws.length && ws[i + n].cap && spaced(text, ws[i + n - 1], ws[i + n])) n++;
    for (let len = n; len >= 2; len--) {
      const phrase = ws
        .slice(i, i + len)
        .map((w) => w.text)
        .join(' ');
      if (!places.has(phrase.toLowerCase())) continue;
      for (let k = i; k < i + len; k++) ws[k].kind = 'place';
      i += len - 1;
      break;
    }
  }
}

const spaced = (text: string, a: Word, b: Word): boolean => b.start === a.end + 1 && text[a.end] === ' ';
