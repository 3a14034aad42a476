import { ADDRESS_RULES, NUMBERED_STREET_RULE } from '../address.js';
import type { Finding } from '../types.js';
import { lexicon } from './lexicon.js';
import { type Word, words } from './words.js';

/**
 * Street addresses beyond the fast tier's forms, in US, UK, European and Latin American styles:
 * - a street name and a house number (Puruntie 82, Rua do Arenque 1634, Erzsébet tér 19., ul. Słowicza 10), kept
 *   when a word says street (a street word or suffix: Rua, ul., tér, -straße, -gata, -vej), when a number stands
 *   before it too (28245 Puruntie 82), or when a cue does (at, on, address:) and no word is an everyday one;
 * - capitalised words and a street type without a number after a cue (on Marina Fort Street);
 * - PO boxes, military addresses (USNS Møller, FPO AA 85844), "the corner of … and …", a city with a US state and
 *   ZIP code, UK postcodes;
 * each grown over what follows on its line (unit, city, region, postcode) and over the short lines under it that an
 * address block holds (Suite 501, Riisa, Estonia 62488). No word the technical list holds is part of a street.
 */
export function findAddresses(text: string): Finding[] {
  const found: Finding[] = [];
  numberedStreets(text, found);
  typedStreets(text, found);
  twoNumberStreets(text, found);
  for (const pattern of [NUMBERED_STREET_RULE.pattern, ...ADDRESS_RULES.map((r) => r.pattern), ...STANDALONE]) {
    pattern.lastIndex = 0;
    for (let m = pattern.exec(text); m; m = pattern.exec(text)) {
      found.push({ type: ADDRESS, start: m.index, end: m.index + m[0].length });
    }
  }
  return found.map((f) => grow(text, f));
}

const ADDRESS = 'street_address';
const LETTERS = String.raw`\p{L}[\p{L}\p{M}'’.-]*`;

/** Words that name a kind of street, before or after its name, lower case, without a final period. */
const STREET_WORDS = new Set(
  (
    'rua rue via viale calle avenida avda av ul ulica u utca tér út útja str strasse straße gasse weg ' +
    'platz allee gata gatan gate vej vegen veien vei gade stræde straat laan plein katu kuja iela gatve ' +
    'cesta trg náměstí nám třída piazza corso largo travessa praça carrer camino paseo plaza rambla ' +
    'chaussée chemin impasse quai allée sokak cadde caddesi οδός λεωφόρος pasaje jirón calzada callejón ' +
    'rodovia estrada alameda vicolo strada'
  ).split(' '),
);
/** Street names written as one word ending in a street type (Koskikatu, Søndergade, Þórunnarstræti). */
const STREET_SUFFIX = new RegExp(
  `(?:straße|strasse|gasse|weg|platz|allee|gata|gatan|gate|vej|vænget|gade|stræde|straat|laan|gracht|katu|` +
    `tie|kuja|polku|vegen|veien|braut|stræti|vägen|väg|utca|ulica|iela|tee|cesta|sokak|caddesi)$`,
  'u',
);
const isCompound = (w: Word): boolean => w.text.length > 5 && STREET_SUFFIX.test(w.text.toLowerCase());
const isStreetWord = (w: Word): boolean => STREET_WORDS.has(w.text.toLowerCase()) || isCompound(w);

/** Month names and abbreviations: `Jan 24` in a listing is a date. */
const MONTHS = new Set(
  (
    'jan january feb february mar march apr april may jun june jul july aug august sep sept september oct ' +
    'october nov november dec december'
  ).split(' '),
);
const UNIT_WORDS = new Set(
  'apt apartment suite ste unit floor fl room box no nr number flat bldg building piso andar etage stock'.split(' '),
);
const TITLES = /^(?:Mr|Mrs|Ms|Miss|Mx|Dr|Prof|Sir|Dame|Madam)\b/u;

/** Right before a street: a preposition or an address label. */
const CUE_BEFORE =
  /(?:^|[^\p{L}])(?:address(?:es)?|addr|at|to|on|in|of|is|and|from|near|lives?|located)[:,]? ?\n?[ \t>]*$/iu;
const LOOK_BACK = 30;
const cueBefore = (text: string, at: number): boolean =>
  at === 0 ||
  CUE_BEFORE.test(text.slice(Math.max(0, at - LOOK_BACK), at)) ||
  /\n[ \t>?]*$/.test(text.slice(Math.max(0, at - 8), at));

/** [house number] one to four words, a number: the street and house number of most non-US styles. */
const NUMBERED = new RegExp(
  String.raw`(?<![\p{L}\p{N}_./:,#@-])(?:(\d{1,6}[A-Za-z]?) )?(${LETTERS}(?: ${LETTERS}){0,3}) (\d{1,5}[A-Za-z]?)\.?` +
    String.raw`(?![\p{L}\p{N}_/@-]|[.,:]\d)`,
  'gu',
);

function numberedStreets(text: string, found: Finding[]): void {
  NUMBERED.lastIndex = 0;
  for (let m = NUMBERED.exec(text); m; m = NUMBERED.exec(text)) {
    const nameStart = m.index + (m[1] ? m[1].length + 1 : 0);
    const ws = words(m[2]);
    // `Apt. 675` numbers a unit, and a title starts a person's name.
    const lastWord = ws[ws.length - 1].text.toLowerCase();
    if (UNIT_WORDS.has(lastWord) || MONTHS.has(lastWord) || TITLES.test(m[2])) {
      NUMBERED.lastIndex = m.index + m[0].length - m[3].length - (m[0].endsWith('.') ? 1 : 0);
      continue;
    }
    // The name is the words after the last everyday or technical one: "I live at Puruntie 82" reads Puruntie.
    let first = ws.length;
    while (first > 0 && ws[first - 1].kind !== 'technical' && ws[first - 1].kind !== 'common') first--;
    const named = ws.slice(first);
    const street = ws.some(isStreetWord);
    let ok = false;
    let start = m.index;
    if (street) {
      // The street starts after the last everyday word before its street word: "station is on Villacher Strasse".
      const s = ws.findIndex(isStreetWord);
      const cut = ws.slice(0, s).findLastIndex((w) => w.kind === 'technical' || w.kind === 'common' || !isUpper(w));
      const street = ws.slice(cut + 1);
      ok = !street.some((w) => w.kind === 'technical') && (street.some(isUpper) || isCompound(ws[s]));
      if (cut >= 0) start = nameStart + ws[cut + 1].start;
    } else if (!named.some((w) => w.text.length >= 3) || named.some((w) => w.kind === 'weak')) {
      ok = false;
    } else if (named.length === ws.length && m[1]) {
      ok = true;
    } else if (named.length > 0 && isUpper(named[0])) {
      start = nameStart + named[0].start;
      ok = cueBefore(text, start);
    }
    if (ok) found.push({ type: ADDRESS, start, end: m.index + m[0].length });
    // Let the house number that ended this match start the next one.
    NUMBERED.lastIndex = m.index + m[0].length - m[3].length - (m[0].endsWith('.') ? 1 : 0);
  }
}
const isUpper = (w: Word): boolean => /^\p{Lu}/u.test(w.text);

/** `on Marina Fort Street`: capitalised words and a street type, no number, after a cue. */
const TYPED = new RegExp(
  String.raw`(?<![\p{L}\p{N}])((?:\p{Lu}[\p{L}\p{M}'’-]+ ){1,3})(?:Street|Avenue|Road|Boulevard|Lane|Drive|Court|` +
    String.raw`Place|Terrace|Parkway|Highway|Square|Crescent|Gardens|Strasse|Straße)(?![\p{L}\p{N}])`,
  'gu',
);
function typedStreets(text: string, found: Finding[]): void {
  TYPED.lastIndex = 0;
  for (let m = TYPED.exec(text); m; m = TYPED.exec(text)) {
    const ws = words(m[1]);
    if (ws.some((w) => w.kind === 'technical') || ws.every((w) => w.kind === 'common')) continue;
    if (!cueBefore(text, m.index)) continue;
    found.push({ type: ADDRESS, start: m.index, end: m.index + m[0].length });
  }
}

/** `9816 214 Pavlou Drandaki`: a building number, a house number, then capitalised words that are no everyday ones. */
const TWO_NUMBERS =
  /(?<![\p{L}\p{N}.,:/-])\d{1,6} \d{1,5}[A-Za-z]? (\p{Lu}[\p{L}\p{M}'’-]+(?: \p{Lu}[\p{L}\p{M}'’-]+){0,3})/gu;
function twoNumberStreets(text: string, found: Finding[]): void {
  TWO_NUMBERS.lastIndex = 0;
  for (let m = TWO_NUMBERS.exec(text); m; m = TWO_NUMBERS.exec(text)) {
    const ws = words(m[1]);
    const plain = (w: Word): boolean => w.kind === 'common' || w.kind === 'weak' || w.kind === 'technical';
    if (ws.some((w) => plain(w) || w.text.length < 3)) continue;
    found.push({ type: ADDRESS, start: m.index, end: m.index + m[0].length });
  }
}

const STANDALONE: readonly RegExp[] = [
  // P.O. Box 242, PO Box 5, Postfach 1234, Apartado 7, Caixa Postal 12
  new RegExp(
    String.raw`(?<![\p{L}\p{N}])(?:P\.? ?O\.? ?Box|Post(?:al)? Office Box|Postbox|Postfach|Apartado(?: de Correos)?|` +
      String.raw`Caixa Postal|Casilla(?: de Correo)?|Bo[iî]te [Pp]ostale) \d{1,6}(?![\p{N}])`,
    'giu',
  ),
  // USNS Møller\nFPO AA 85844; Unit 8811 Box 7012\nDPO AP 12345
  /(?<![\p{L}\p{N}])(?:(?:USNS|USNV|USS|USCGC|Unit|PSC) [^\n]{1,40}\n[ \t>]*)?(?:FPO|APO|DPO) (?:AA|AE|AP) \d{5}\b/giu,
  // the corner of Dalbraut 99 and Frederikke Coves; the corner of 35 Pentelis Str. and Waechter Turnpike (no braces:
  // `the corner of {street_name} and {street_name}` is a template)
  new RegExp(
    String.raw`(?<![\p{L}])(?:the )?corner of [^\n?!;:(){}]{3,80}? and ` +
      String.raw`(?:[^\n?!;:(){}. ]|[. ](?! ?(?:in|for|at|on|to)\b)(?!$|\s)){2,60}`,
    'giu',
  ),
  // 69 Av Sidi Lakhmi, 29 Rue de Tanger, 26 rue des lieutemants Thomazo: a number, a street word, its name
  new RegExp(
    String.raw`(?<![\p{L}\p{N}.,:-])\d{1,5},? (?:rue|av|av\.|avenida|avenue|boulevard|bd|chemin|impasse|allée|quai|` +
      String.raw`calle|rua|via)(?: (?!(?:street|st|in|on|at|for|and|the|is|was)\b)[\p{L}][\p{L}\p{M}'’-]*){1,5}`,
    'giu',
  ),
  // Caxias do Sul, RS 24893; Springfield, IL 62704-1234
  new RegExp(
    String.raw`(?<![\p{L}\p{N}])\p{Lu}[\p{L}\p{M}'’.-]*(?: (?:\p{Lu}[\p{L}\p{M}'’.-]*|d[aeo]s?|del)){0,4}, ` +
      String.raw`[A-Z]{2} \d{5}(?:-\d{4})?\b`,
    'gu',
  ),
  // UK postcodes: SW1A 1AA, M1 1AE, EC1A 1BB
  /(?<![\p{L}\p{N}])(?:[A-PR-UWYZ][A-HK-Y]?\d[A-Z\d]?|GIR) \d[ABD-HJLNP-UW-Z]{2}(?![\p{L}\p{N}])/gu,
];

/** A unit or floor: Apt. 4, Suite 200, Flat 3, apto 42, 3. OG, 2º izquierda, 4th floor. */
const UNIT =
  String.raw`(?:(?:Apt\.?|Apartment|Suite|Ste\.?|Unit|Flat|Floor|Fl\.|[Pp]iso|[Aa]ndar|Etage|Stock|[Aa]pto\.?|` +
  String.raw`[Dd]pto\.?|#) ?[\p{L}\p{N}-]{1,6}|\d{1,2}(?:\.|º|ª|st|nd|rd|th) ?(?:OG|Stock|Etage|[Ff]loor|piso|andar|` +
  String.raw`izquierda|derecha|izq\.?|dcha\.?))`;
/** A postcode after a city: 10117, 01310-200, 62704-1234, SW1A 2AA. */
const POSTCODE = String.raw`(?:\d{4,6}(?:-\d{3,4})?|[A-Z]{1,2}\d[A-Z\d]? \d[A-Z]{2})`;
/** What follows a street on its line: a compass point, units, then a city, region, country and postcode. */
const TAIL = new RegExp(
  String.raw`(?: (?:NW|NE|SW|SE|N|S|E|W)\b)?(?:,? ${UNIT}){0,2}` +
    String.raw`(?:, ?(?:${POSTCODE} )?\p{Lu}[\p{L}\p{M}'’.-]*` +
    String.raw`(?: (?:\p{Lu}[\p{L}\p{M}'’.-]*|d[aeo]s?|del|nad|na)){0,4}(?:,? (?:- )?[A-Z]{2})?(?:,? ${POSTCODE})?){0,3}`,
  'uy',
);
/** A short line of an address block: a unit, a city, a region, a country, a postcode. */
const BLOCK_LINE = new RegExp(
  String.raw`^[ \t>?]*(?:(?:Apt\.?|Apartment|Suite|Ste\.?|Unit|Floor|P\.? ?O\.? Box) ?[\p{L}\p{N}-]{1,6}|` +
    String.raw`,? ?[\p{L}\p{M}][\p{L}\p{M}'’.() -]{0,40}(?:,? ?(?:[A-Z]{2}|nan))?(?:,? \d{3,6})?|` +
    String.raw`,? ?[A-Z]{2}(?: \d{3,6})?|\d{4,6})[ \t]*$`,
  'u',
);
const MAX_BLOCK_LINES = 5;
/** Before a street: its building number, a unit. */
const LEAD = /(?<![\p{L}\p{N}.,:-])(?:(?:Apt\.?|Suite|Unit|Flat) \d{1,5},? )?(?:\d{1,6}[A-Za-z]? ){0,2}$/u;
const MAX_BLOCK_LINE = 48;

/** The end of the line that starts at `from`, if it ends within `max` characters (or the text does). */
function lineEnd(text: string, from: number, max: number): number | undefined {
  const limit = Math.min(text.length, from + max + 1);
  for (let i = from; i < limit; i++) if (text[i] === '\n') return i;
  return limit === text.length ? limit : undefined;
}

/** The finding grown over the rest of its street's line and the address block's lines under it. */
function grow(text: string, f: Finding): Finding {
  const { technical } = lexicon();
  // Numbers before it (a building number, `Apt. 675`) belong to it.
  const before = LEAD.exec(text.slice(Math.max(0, f.start - 24), f.start));
  const start = before?.[0] ? f.start - before[0].length : f.start;
  TAIL.lastIndex = f.end;
  const tail = TAIL.exec(text);
  let end = f.end + (tail ? tail[0].length : 0);
  // The block: lines under the street that each hold only a part of an address; one empty line may sit in it.
  for (let lines = 0; lines < MAX_BLOCK_LINES; lines++) {
    const nl = lineEnd(text, end, 4);
    if (nl === undefined || nl === text.length || text.slice(end, nl).trim() !== '') break;
    let next = nl + 1;
    const blank = lineEnd(text, next, 4);
    if (blank !== undefined && blank < text.length && text.slice(next, blank).trim() === '') next = blank + 1;
    const stop = lineEnd(text, next, MAX_BLOCK_LINE);
    if (stop === undefined) break;
    const line = text.slice(next, stop);
    if (line.trim() === '' || !BLOCK_LINE.test(line)) break;
    const ws = words(line);
    if (ws.some((w) => technical.has(w.text.toLowerCase())) || ws.filter((w) => w.kind === 'common').length > 1) break;
    end = next + line.trimEnd().length;
  }
  return { type: f.type, start, end };
}
