import type { Finding } from '../types.js';
import { lexicon } from './lexicon.js';
import { type Word, words } from './words.js';

/**
 * Person names, from two kinds of evidence:
 * - running text: runs of capitalised words, split at everyday and technical words, kept when the name lists know
 *   one of their words (Jonas Nielsen, Bryan Maclean), when they have a middle initial (Szabina J Gelencsér), or
 *   when a cue stands before them (Mr., "my name is", "by" for two words or more);
 * - the shapes transcripts carry, where any capitalised words are a name: header lines (`From:`, `cc:`,
 *   `Co-authored-by:`, `Author:`), name keys in JSON, YAML and TOML, the line under a sign-off, dialogue labels
 *   and `@mentions`.
 * Words the technical list holds (Redis, Claude, Jest) and identifiers (useState, GitHub, API) are never part of
 * a name. Every pass is linear in the text's length; a run of more than four capitalised words is a title, not a
 * name.
 */
export function findPersons(text: string): Finding[] {
  const ws = words(text);
  const found: Finding[] = [];
  runningText(text, ws, found);
  cuedWords(text, ws, found);
  const organisations = lists(text, ws, found);
  lowerCasePairs(text, ws, found);
  headers(text, found);
  keyedValues(text, found);
  signatures(text, found);
  dialogue(text, found);
  mentions(text, found);
  return found.filter((f) => !inside(organisations, f));
}

/** Whether `f` lies inside one of `spans` (sorted by start, disjoint): a binary search, so linear-log overall. */
function inside(spans: ReadonlyArray<{ start: number; end: number }>, f: Finding): boolean {
  let lo = 0;
  let hi = spans.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (spans[mid].start <= f.start) lo = mid + 1;
    else hi = mid;
  }
  return lo > 0 && f.end <= spans[lo - 1].end;
}

const PERSON = 'person';
const MAX_NAME_WORDS = 4;
const PARTICLES = new Set('de da do dos das del della di du van von der den ter ten'.split(' '));
/** Titles: a cue for the name after them, not part of it. */
const TITLES = new Set('Mr Mrs Ms Miss Mx Dr Prof Sir Dame Madam Mme Mlle Herr Frau'.split(' '));
/** Words of addresses that the name lists hold. */
const NOT_NAMES = new Set(['Apt', 'Ste', 'Suite', 'Unit', 'Box']);
const SUFFIXES = new Set(['Jr', 'Sr', 'II', 'III', 'IV']);
/** What may separate two words of one name: a space, or a period and a space after an initial (`J. Park`). */
const joined = (text: string, a: Word, b: Word): boolean => {
  const gap = text.slice(a.end, b.start);
  return gap === ' ' || (a.kind === 'initial' && (gap === '.' || gap === '. '));
};

/** Before a name, when the name lists need not know it: titles (case-sensitive, `ms` is a unit) and phrases. */
const TITLE_BEFORE = /(?:^|[^\p{L}])(?:Mr|Mrs|Ms|Miss|Mx|Dr|Prof|Sir|Dame|Madam|Mme|Mlle|Herr|Frau|Sra?|Srta)\.? $/u;
const STRONG_BEFORE = new RegExp(
  String.raw`(?:^|[^\p{L}])(?:name(?:'s| is| was|:|\?)?|I'm|I am|called|named|named (?:him|her|them)|call me|` +
    `calls me|dear|hi|hello|hey|thanks|thank you|my (?:kid|son|daughter|wife|husband|partner|boss|manager|` +
    `colleague|friend|brother|sister|mother|father|mom|dad))[,:]? $`,
  'iu',
);
/** Before a name of two words or more. */
const WEAK_BEFORE = new RegExp(
  String.raw`(?:^|[^\p{L}])(?:by|with|from|to|ask|asked|ping|pinged|cc|under|for|told|tell|thank|meet|met|contact|` +
    `call|and|or)[,:]? $`,
  'iu',
);
const LOOK_BACK = 40;

type Cue = 'strong' | 'weak' | undefined;
function cueBefore(text: string, at: number): Cue {
  const before = text.slice(Math.max(0, at - LOOK_BACK), at);
  if (TITLE_BEFORE.test(before) || STRONG_BEFORE.test(before)) return 'strong';
  if (WEAK_BEFORE.test(before)) return 'weak';
  return undefined;
}

const isPart = (w: Word): boolean =>
  (w.cap &&
    (w.kind === 'name' || w.kind === 'weak' || w.kind === 'unknown') &&
    !TITLES.has(w.text) &&
    !NOT_NAMES.has(w.text)) ||
  (w.caseless && w.kind === 'name') ||
  w.kind === 'initial';

/**
 * Whether `a b` is a known first name and a known surname, both capitalised, one of them (not both: Hong Kong) a
 * place: a name (Marta Palermo, Georgia Smith), not a place (Norway).
 */
function placeInName(text: string, a: Word, b: Word): boolean {
  const { firstNames, surnames } = lexicon();
  return (
    (a.kind === 'place') !== (b.kind === 'place') &&
    a.cap &&
    b.cap &&
    text.slice(a.end, b.start) === ' ' &&
    firstNames.has(a.text.toLowerCase()) &&
    surnames.has(b.text.toLowerCase())
  );
}

/** Capitalised runs split at everyday and technical words; a segment is a name when its evidence says so. */
function runningText(text: string, ws: readonly Word[], found: Finding[]): void {
  const technical = technicalSentences(text, ws);
  let i = 0;
  while (i < ws.length) {
    if (!isPart(ws[i]) && !(i + 1 < ws.length && placeInName(text, ws[i], ws[i + 1]))) {
      i++;
      continue;
    }
    let j = i + 1;
    while (j < ws.length && joined(text, ws[j - 1], ws[j])) {
      const w = ws[j];
      const particle = PARTICLES.has(w.text) && j + 1 < ws.length && isPart(ws[j + 1]);
      if (!isPart(w) && !particle && !SUFFIXES.has(w.text) && !placeInName(text, ws[j - 1], w)) break;
      j++;
    }
    // The rest of a place's name after the place (Tallinn Harbour, London Bridge) is no person.
    const afterPlace =
      i > 0 && ws[i - 1].kind === 'place' && ws[i - 1].cap && text.slice(ws[i - 1].end, ws[i].start) === ' ';
    if (!afterPlace) consider(text, ws.slice(i, j), technical[i], found);
    i = j;
  }
}

/** What ends a sentence between two words, and what marks code between them. */
const SENTENCE_END = /[.!?](?:\s|$)|\n/;
/** The `>` that opens a quoted line of mail, which is no code punctuation. */
const QUOTE_MARKS = /\n[ \t]*(?:>[ \t]*)+/g;
/** Code punctuation, a dotted or digit-bearing name (Chart.js, Auth0, k9s) between two words. */
const CODE_MARK = /[`=_{}<>[\]#$|\\]|\.\S|(?<!['’])\p{L}/u;

/** A word in capitals too long for an acronym and outside the technical list: a place or a shout (SEINÄJOKI). */
const SHOUTED = /^\p{Lu}{6,}$/u;
const shouted = (word: string): boolean => SHOUTED.test(word) && !lexicon().technical.has(word.toLowerCase());

/**
 * For each word, whether its sentence reads as technical: it holds a technical word (a product, a tool, an
 * identifier) or code punctuation. There a lone capitalised word that the name lists know is more likely a product
 * (Looker, Alfred, Okta) than a person, and needs a cue.
 */
function technicalSentences(text: string, ws: readonly Word[]): boolean[] {
  const flags = new Array<boolean>(ws.length).fill(false);
  let from = 0;
  let technical = false;
  for (let i = 0; i <= ws.length; i++) {
    const gap = i === 0 ? '' : text.slice(ws[i - 1].end, i < ws.length ? ws[i].start : text.length);
    const ends = i === ws.length || SENTENCE_END.test(gap);
    if (i > 0 && CODE_MARK.test(gap.replace(QUOTE_MARKS, '\n'))) technical = true;
    if (ends) {
      for (let k = from; k < i; k++) flags[k] = technical;
      from = i;
      technical = false;
    }
    if (i < ws.length && ws[i].kind === 'technical' && !shouted(ws[i].text)) technical = true;
  }
  return flags;
}

function consider(text: string, run: readonly Word[], technical: boolean, found: Finding[]): void {
  // An everyday word that opens or closes a run is a name only where it can be: a first name first (Mark Smith,
  // not Ask Ana Souza), a surname last.
  const { firstNames, surnames } = lexicon();
  let from = 0;
  let to = run.length;
  while (from < to && run[from].kind === 'weak' && !firstNames.has(run[from].text.toLowerCase())) from++;
  while (to > from && run[to - 1].kind === 'weak' && !surnames.has(run[to - 1].text.toLowerCase())) to--;
  if (from === to) return;
  // A place, not a person: the run follows a place word (New York) or opens with one (San Francisco).
  if (
    PLACE_FIRST.has(run[from].text.replace(/\.$/, '')) ||
    PLACE_BEFORE.test(text.slice(Math.max(0, run[from].start - 12), run[from].start))
  )
    return;
  if (placeName(text, run)) return;
  if (run.length === 1 && IN_BEFORE.test(text.slice(Math.max(0, run[0].start - 8), run[0].start))) return;
  const segment = run.slice(from, to);
  const full = segment.filter((w) => w.kind !== 'initial' && !PARTICLES.has(w.text) && !SUFFIXES.has(w.text));
  if (full.length > MAX_NAME_WORDS) {
    pairs(segment, found);
    return;
  }
  if (full.length === 0) return;
  const named = full.filter((w) => w.kind === 'name').length;
  const initials = segment.length - full.length > 0 && segment.some((w) => w.kind === 'initial');
  const start = segment[0].start;
  let end = segment[segment.length - 1].end;
  if (segment[segment.length - 1].kind === 'initial' && text[end] === '.') end++;
  let person = false;
  const first = full[0].text.toLowerCase();
  const last = full[full.length - 1].text.toLowerCase();
  // Read only when needed: most runs decide without it.
  const cue = (): Cue => cueBefore(text, start);
  // In a script without case, nothing marks a lone word as a name (שלום is a name and a greeting): it needs a cue,
  // unless it is a surname and given name written together (王伟宸).
  const lone = full.length === 1;
  const together = lone && full[0].caseless && !firstNames.has(first) && !surnames.has(first);
  if (lone && full[0].caseless && !together) person = cue() === 'strong';
  else if (named >= 1 && (!lone || together || !technical || cue() === 'strong')) person = true;
  else if (full.length >= 2 && full.every((w) => w.kind === 'weak') && firstNames.has(first) && surnames.has(last)) {
    // Two everyday words can still be a first name and a surname: Mark Smith, Rose Hunter.
    person = true;
  } else if (initials && (full.length >= 2 || surnames.has(last))) person = true;
  else if (!technical && full.length >= 2 && full.length <= 3 && full.every((w) => w.kind === 'unknown')) person = true;
  else {
    const before = cue();
    person = before === 'strong' || (before === 'weak' && full.length >= 2);
  }
  if (person) found.push({ type: PERSON, start, end });
}

/** Two words that are a known first name and a known surname (Fletcher Hill, Mark Smith). */
function pair(run: readonly Word[]): boolean {
  const { firstNames, surnames } = lexicon();
  return run.length === 2 && firstNames.has(run[0].text.toLowerCase()) && surnames.has(run[1].text.toLowerCase());
}

/** Before a lone capitalised word, a place follows (in Austin, near Florence), not a person (`at` Gary can be one). */
const IN_BEFORE = /(?:^|[^\p{L}])(?:in|near) $/u;

/** Words that end the name of a day, not a person (Labor Day, Christmas Eve, Mother's Day). */
const DAYS = new Set(['Day', 'Eve']);
const DAY_AFTER = /^(?:['’]s)? (?:Day|Eve)\b/u;
/** The capitalised word after a run: `Hawkins Orchestra`, `Conway Inc.`. */
const WORD_AFTER = /^ (\p{Lu}\p{Ll}+)/u;

/**
 * Whether a capitalised run names a place, an organisation or a day rather than a person: its last word ends such
 * names (Queen Elizabeth Park, Conway Inc, Angel Falls, Christmas Eve), or such a word follows it (Hawkins
 * Orchestra, Labor Day). The gazetteer's whole names (Goldman Sachs) are `place` words already.
 */
function placeName(text: string, run: readonly Word[]): boolean {
  const { placeEnds } = lexicon();
  const last = run[run.length - 1];
  // A first name and a surname, or a run with an initial, stays a name (Fletcher Hill, J. Park; not Hyde Park).
  const named = pair(run) || run.some((w) => w.kind === 'initial');
  if (run.length >= 2 && !named && placeEnds.has(last.text.toLowerCase())) return true;
  if (run.length >= 2 && DAYS.has(last.text)) return true;
  const after = WORD_AFTER.exec(text.slice(last.end, last.end + 40));
  return (
    DAY_AFTER.test(text.slice(last.end, last.end + 8)) || (after !== null && placeEnds.has(after[1].toLowerCase()))
  );
}

/**
 * A run too long to be one name (a title, or names with only spaces between them: `Ana Souza João Silva`): each
 * known first name followed by a known surname in it is a name, and so is any other word the lists know that is no
 * everyday word.
 */
function pairs(run: readonly Word[], found: Finding[]): void {
  const { firstNames, surnames } = lexicon();
  const known = (w: Word): boolean => w.kind === 'name' || w.kind === 'weak';
  for (let i = 0; i < run.length; i++) {
    const [a, b] = [run[i], run[i + 1]];
    if (b && known(a) && known(b) && firstNames.has(a.text.toLowerCase()) && surnames.has(b.text.toLowerCase())) {
      found.push({ type: PERSON, start: a.start, end: b.end });
      i++;
    } else if (a.kind === 'name') {
      // A known name left over is still one (a surname whose first name paired with the word before).
      found.push({ type: PERSON, start: a.start, end: a.end });
    }
  }
}

/** A title, or a phrase that names the next word whatever its case: `Mrs. Baker`, `my name is vitoria`. */
const NAMING_BEFORE =
  /(?:^|[^\p{L}])(?:my name is|name is|call me|calls me|call her|call him|maiden name is|named|starring|says|said|asked|told) $/iu;
/** Where a name-like word is part of a place: `New York`, `San Francisco`, `Fort Worth`. */
const PLACE_BEFORE =
  /(?:^|[^\p{L}])(?:New|San|Santa|Santo|São|Sao|Los|Las|Saint|St\.?|Sankt|Fort|Port|Porto|Puerto|Lake|Mount|Mt\.?|Rio|Kuala|Buenos|Baton|Palo|Salt|Costa|Nueva|Nuevo|Villa|Cape|Glen|Palm|Bay|Grand) $/u;
const PLACE_FIRST = new Set(
  'New San Santa Santo São Sao Los Las Saint St Sankt Fort Port Porto Puerto Lake Mount Mt Rio Kuala Buenos Baton Palo Salt Costa Nueva Nuevo Cape'.split(
    ' ',
  ),
);
/** A word between a comma and an exclamation or question mark. */
const VOCATIVE = /^, [\p{L}\p{M}'’-]+[!?]$/u;
/** After a capitalised word at a sentence start: what only people do. */
const PERSON_AFTER =
  /^(?:, (?:can|could|would|will) (?:i|you) |, please |'s (?:killers|daughter|son|wife|husband|mother|father|family|funeral|birthday) | (?:lives|lived|spent a|shouted|smiled|laughed|cried|married|was born|is from|was from|had given|has given|began writing|is very (?:reliable|kind|nice)|is a \d+ year old|told|asked|says|said)\b)/i;

/**
 * Single words that only a cue makes a name: after a title or a naming phrase (any case, an everyday word
 * included: `Mrs. Baker`, `my name is vitoria`), a known first name called at a sentence's end (`…, Mark!`), and a
 * capitalised word opening a sentence that goes on as only a person's does (`Tomomi is from…`, `Aloisia, can I
 * please speak…`; an everyday word such as Will only in a plain, not technical, sentence).
 */
function cuedWords(text: string, ws: readonly Word[], found: Finding[]): void {
  const technical = technicalSentences(text, ws);
  for (let i = 0; i < ws.length; i++) {
    const w = ws[i];
    if (w.kind === 'technical' || w.kind === 'place' || w.kind === 'initial' || w.text.length < 2) continue;
    if (TITLES.has(w.text)) continue;
    const before = text.slice(Math.max(0, w.start - LOOK_BACK), w.start);
    // After a title a name is capitalised (Mrs. Baker, not Sir bot); after a naming phrase any case will do.
    const titled = TITLE_BEFORE.test(before) && w.cap;
    const named = NAMING_BEFORE.test(before) && (w.cap || (w.kind !== 'common' && w.kind !== 'weak'));
    if (titled || named) {
      found.push({ type: PERSON, start: w.start, end: w.end });
      continue;
    }
    // Called by name at the end of a sentence: `Don't go to town, Mark!`, `Remember me, Maria?`.
    if (
      w.cap &&
      VOCATIVE.test(text.slice(Math.max(0, w.start - 2), w.end + 1)) &&
      lexicon().firstNames.has(w.text.toLowerCase())
    ) {
      found.push({ type: PERSON, start: w.start, end: w.end });
      continue;
    }
    const opens = i === 0 || SENTENCE_END.test(text.slice(ws[i - 1].end, w.start));
    // What follows decides, even in a technical sentence, unless the word is an everyday one too (Will, Mark).
    const plain = w.kind !== 'weak' || !technical[i];
    if (opens && w.cap && w.kind !== 'common' && plain && PERSON_AFTER.test(text.slice(w.end, w.end + 40)))
      found.push({ type: PERSON, start: w.start, end: w.end });
  }
}

const CONJUNCTIONS = new Set(['and', 'or', '&']);

/** The index of the list item after item `k` (`, `, ` and `, `, and `), or -1. */
function nextItem(text: string, ws: readonly Word[], k: number): number {
  if (k + 1 >= ws.length) return -1;
  const gap = text.slice(ws[k].end, ws[k + 1].start);
  const conjunction = CONJUNCTIONS.has(ws[k + 1].text);
  if (gap === ', ' && !conjunction) return k + 1;
  if ((gap === ', ' || gap === ' ') && conjunction && k + 2 < ws.length) {
    return text.slice(ws[k + 1].end, ws[k + 2].start) === ' ' ? k + 2 : -1;
  }
  return gap === ' & ' ? k + 1 : -1;
}

/**
 * Lists of single capitalised words (`Kónya, Becker and Vasquez`, `Gaetane, Hannah, Anthony`): when two of the
 * items are known names (or one, in a list of two), every item that is not an everyday or technical word is taken
 * as a name too. Returns the lists that a word ending an organisation's name follows (`Davis, Reynolds and
 * Williamson Orchestra`), where no pass may find a name, in text order.
 */
function lists(text: string, ws: readonly Word[], found: Finding[]): Array<{ start: number; end: number }> {
  const organisations: Array<{ start: number; end: number }> = [];
  let i = 0;
  while (i < ws.length) {
    const items = [ws[i]];
    let last = i;
    for (let k = nextItem(text, ws, i); k >= 0; k = nextItem(text, ws, k)) {
      items.push(ws[k]);
      last = k;
    }
    const named = items.filter((w) => (w.cap || w.caseless) && w.kind === 'name').length;
    // A list that a word ending an organisation's name follows is that organisation (Davis, Reynolds and
    // Williamson Orchestra).
    const after = WORD_AFTER.exec(text.slice(ws[last].end, ws[last].end + 40));
    const organisation = after !== null && lexicon().placeEnds.has(after[1].toLowerCase());
    if (organisation && items.length >= 2) organisations.push({ start: items[0].start, end: ws[last].end });
    // A pair with a place or product in it is not a pair of names (Stanley and Goldman Sachs).
    const things = items.some((w) => w.kind === 'place' || w.kind === 'technical');
    if (items.length >= 2 && !organisation && (named >= 2 || (named === 1 && items.length === 2 && !things))) {
      for (const w of items) {
        const capitalised = w.cap && (w.kind === 'weak' || w.kind === 'unknown') && !TITLES.has(w.text);
        if (capitalised || ((w.cap || w.caseless) && w.kind === 'name')) {
          found.push({ type: PERSON, start: w.start, end: w.end });
        }
      }
    }
    i = last + 1;
  }
  return organisations;
}

/**
 * `patricia desrosiers`, `benjamin a seiler`: a known first name, perhaps an initial, then a known surname, none of
 * them an everyday or technical word.
 */
function lowerCasePairs(text: string, ws: readonly Word[], found: Finding[]): void {
  const { firstNames, surnames } = lexicon();
  for (let i = 0; i + 1 < ws.length; i++) {
    const a = ws[i];
    if (a.cap || a.kind !== 'name' || !firstNames.has(a.text)) continue;
    let k = i + 1;
    if (ws[k].text.length === 1 && k + 1 < ws.length && /^\.? $/.test(text.slice(ws[k].end, ws[k + 1].start))) k++;
    const b = ws[k];
    if (b.cap || b.kind !== 'name' || !surnames.has(b.text)) continue;
    if (text.slice(ws[k - 1].end, b.start).length > 2 || text.slice(a.end, ws[i + 1].start) !== ' ') continue;
    found.push({ type: PERSON, start: a.start, end: b.end });
  }
}

/**
 * The names in a field that holds names: items split at commas, semicolons and "and", each without its `<email>`
 * or quotes, kept when all its words can be part of a name (capitalised, initials, particles, or known names in
 * lower case) and one is more than an initial.
 */
function namesIn(text: string, from: number, to: number, found: Finding[]): void {
  const ITEM = /[^,;&]+/g;
  const value = text.slice(from, to);
  for (let m = ITEM.exec(value); m; m = ITEM.exec(value)) {
    for (const part of m[0].split(/ and /)) {
      const offset = from + m.index + m[0].indexOf(part);
      const bare = part.replace(/<[^>]*>|\([^)]*\)|["'`]/g, (s) => ' '.repeat(s.length));
      const ws = words(bare);
      if (ws.length === 0 || ws.length > MAX_NAME_WORDS + 2) continue;
      if (/[@:/\\=]|\d/.test(bare.replace(/<[^>]*>/g, ''))) continue;
      const ok = ws.every(
        (w) =>
          (w.cap && w.kind !== 'technical' && w.kind !== 'common') ||
          w.kind === 'initial' ||
          PARTICLES.has(w.text) ||
          (!w.cap && w.kind === 'name'),
      );
      if (!ok || !ws.some((w) => w.kind !== 'initial')) continue;
      let end = ws[ws.length - 1].end;
      if (ws[ws.length - 1].kind === 'initial' && bare[end] === '.') end++;
      found.push({ type: PERSON, start: offset + ws[0].start, end: offset + end });
    }
  }
}

const HEADER = new RegExp(
  String.raw`^[ \t>]*(?:from|to|cc|bcc|reply-to|sender|author|committer|co-authored-by|signed-off-by|reviewed-by|` +
    `reported-by|acked-by|tested-by|suggested-by|helped-by|approved-by|directed by|written by|produced by|` +
    `name|full name|first name|last name|contact|owner|assignee|assigned to|reviewers?|maintainers?|` +
    String.raw`attendees|customer|client|patient|employee|manager)[ \t]*:[ \t]*([^\n]*)`,
  'gimu',
);

function headers(text: string, found: Finding[]): void {
  HEADER.lastIndex = 0;
  for (let m = HEADER.exec(text); m; m = HEADER.exec(text)) {
    const to = m.index + m[0].length;
    namesIn(text, to - m[1].length, to, found);
  }
}

/** `"name": "Ana Souza"`, `author = "Ana Souza <ana@…>"`, `authors: ["…"]`. */
const KEYED = new RegExp(
  `["']?(?:name|author|authors|full_?name|first_?name|last_?name|display_?name|given_?name|family_?name|` +
    String.raw`contact|owner|assignee|reviewer|committer|maintainers?|customer|recipient|sender)["']?[ \t]*[:=]` +
    String.raw`[ \t]*\[?[ \t]*(["'])([^"'\\\n]{1,100})\1`,
  'giu',
);

function keyedValues(text: string, found: Finding[]): void {
  KEYED.lastIndex = 0;
  for (let m = KEYED.exec(text); m; m = KEYED.exec(text)) {
    const to = m.index + m[0].length - 1;
    namesIn(text, to - m[2].length, to, found);
  }
}

const SIGN_OFF = new RegExp(
  String.raw`^[ \t>]*(?:--|—|thanks|thank you|thanks again|many thanks|best|best regards|kind regards|regards|` +
    String.raw`warm regards|cheers|sincerely|yours|yours truly|all the best)[,.!]?[ \t]*\n[ \t>]*([^\n]{1,60})$`,
  'gimu',
);

function signatures(text: string, found: Finding[]): void {
  SIGN_OFF.lastIndex = 0;
  for (let m = SIGN_OFF.exec(text); m; m = SIGN_OFF.exec(text)) {
    const to = m.index + m[0].length;
    namesIn(text, to - m[1].length, to, found);
    SIGN_OFF.lastIndex = to - m[1].length;
  }
}

/**
 * `Nicole: Remember me?` — a line opened by one or two words and a colon: a speaker when the name lists know a
 * word, or when the line before or after is opened by a speaker too (a dialogue).
 */
const DIALOGUE = /^[ \t>]*(\p{L}[\p{L}\p{M}'’-]+(?: \p{Lu}[\p{L}\p{M}'’-]+)?):[ \t"“]/gmu;

function dialogue(text: string, found: Finding[]): void {
  DIALOGUE.lastIndex = 0;
  const speakers: Array<{ start: number; end: number; known: boolean }> = [];
  for (let m = DIALOGUE.exec(text); m; m = DIALOGUE.exec(text)) {
    const ws = words(m[1]);
    if (ws.some((w) => w.kind === 'technical' || w.kind === 'common' || TITLES.has(w.text))) continue;
    // A first name that is an everyday word too (Heather, Destiny) is a speaker only in a run of speakers.
    const weakFirst = (w: Word): boolean => w.kind === 'weak' && lexicon().firstNames.has(w.text.toLowerCase());
    if (!ws.every((w) => w.kind === 'name' || w.kind === 'unknown' || weakFirst(w))) continue;
    const start = m.index + m[0].indexOf(m[1]);
    speakers.push({ start, end: start + m[1].length, known: ws.some((w) => w.kind === 'name') && !ws.some(weakFirst) });
  }
  const adjacent = (a: { end: number }, b: { start: number }): boolean => {
    const between = text.slice(a.end, b.start);
    return between.length < 400 && between.split('\n').length === 2;
  };
  speakers.forEach((s, i) => {
    const paired = (i > 0 && adjacent(speakers[i - 1], s)) || (i + 1 < speakers.length && adjacent(s, speakers[i + 1]));
    if (s.known || paired) found.push({ type: PERSON, start: s.start, end: s.end });
  });
}

/** `@ana`: a handle, not an email, npm scope, version tag, decorator or documentation tag. */
const MENTION = /(?<![\w@./`'"-])@([A-Za-z][A-Za-z0-9-]{1,38})(?![\w@/-]|\.[A-Za-z0-9]|\()/g;
const NOT_HANDLES = new Set(
  (
    'param returns return type typedef template throws throw example see link deprecated since default property ' +
    'prop callback override readonly internal public private protected remarks ts-ignore ts-expect-error ' +
    'ts-nocheck ts-check jsx jsxImportSource license author module namespace import media keyframes font-face ' +
    'tailwind apply layer supports charset echo latest next beta canary alpha rc types scope file fileoverview ' +
    'description summary version todo fixme note class constructor extends implements abstract async enum event ' +
    'fires function global inheritdoc kind member memberof name api route here channel everyone staticmethod ' +
    'classmethod dataclass abstractmethod property cached functools pytest app router injectable component ' +
    'test before after beforeeach aftereach beforeall afterall vitest-environment jest-environment ' +
    'satisfies experimental alpha preview stable lts tag tags ignore inline packagedocumentation category ' +
    'group hidden typeparam defaultvalue'
  ).split(' '),
);

function mentions(text: string, found: Finding[]): void {
  MENTION.lastIndex = 0;
  for (let m = MENTION.exec(text); m; m = MENTION.exec(text)) {
    if (NOT_HANDLES.has(m[1].toLowerCase()) || lexicon().common.has(m[1].toLowerCase())) continue;
    if (standsAlone(text, m.index, m.index + m[0].length)) continue;
    found.push({ type: PERSON, start: m.index, end: m.index + m[0].length });
  }
}

/** Whether [start, end) is alone on its line but for spaces (as a decorator is); reads only the spaces around it. */
function standsAlone(text: string, start: number, end: number): boolean {
  let i = start;
  while (i > 0 && (text[i - 1] === ' ' || text[i - 1] === '\t')) i--;
  if (i > 0 && text[i - 1] !== '\n') return false;
  let j = end;
  while (j < text.length && (text[j] === ' ' || text[j] === '\t' || text[j] === '\r')) j++;
  return j === text.length || text[j] === '\n';
}
