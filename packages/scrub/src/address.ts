import type { Rule } from './engine.js';
import type { Finding } from './types.js';

/**
 * Street addresses in the forms common enough to match without a gazetteer. Best effort, not validated.
 * Number, one to four capitalised words, a street suffix: 1668 Glyn St, 14 Crown Street, 221B Baker Street. It starts
 * with a digit, so it is tried only where a number starts (`numberStarts`), with the other number-led rules.
 */
export const NUMBERED_STREET_RULE: Rule = {
  type: 'street_address',
  pattern:
    /(?<![\w.])\d{1,6}[A-Za-z]?\s(?:[A-Z][\p{L}'.-]{0,24}\s){1,4}(?:Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Lane|Ln|Drive|Dr|Court|Ct|Way|Place|Pl|Terrace|Parkway|Pkwy|Circle|Cir|Highway|Hwy|Square|Sq|Trail|Crescent|Close|Row|Walk|Gardens|Hill|Park|Loop|Ridge|Path|Pike|Plaza|Alley|Mews|Green|Grove|Station|Port|Fort|Crossing|Junction|Mill|Point|Springs?|Streets|Squares)(?![\p{L}\d])\.?(?:,?\s(?:Apt\.|Suite|Unit)\s\d{1,5})?/gu,
};

/** Street addresses that start with a literal word; one search finds the literals of all three. */
export const ADDRESS_RULES: readonly Rule[] = [
  {
    type: 'street_address',
    // Rue de la Paix 5, Via Franscini 71, Rua do Arenque 1634
    pattern:
      /(?<![\p{L}\d])(?:Rue|Via|Viale|Calle|Avenida|Rua|Piazza|Praça|Plaza|Carrer|Ulica|Strada)(?:\s[\p{L}'’.-]{1,30}){1,4}\s\d{1,5}[a-zA-Z]?(?![\p{L}\d])/gu,
  },
  // Apt. 4, Suite 200; PSC 1234, Box 5678. Two rules, so that each starts with literals: the three rules share one
  // search for them.
  { type: 'street_address', pattern: /(?<![\p{L}\d])(?:Apt\.?|Apartment|Suite|Ste\.|Unit)\s#?\d{1,5}(?!\d)/gu },
  { type: 'street_address', pattern: /(?<![\p{L}\d])PSC \d{4}, Box \d{4}/gu },
];

/**
 * A street-name suffix then a house number: Koskikatu 25, Bundesstrasse 31, Præstevænget 15, Storgatan 3b.
 * Read at the space before a number start (`numberStarts`): a space and a digit are rarer than the suffixes'
 * letter pairs. The suffix is checked by the lookbehind (no suffix ends another, so the one captured is the one
 * there).
 */
const SUFFIXED =
  /\s\d(?<=(straße|strasse|weg|gasse|platz|allee|katu|tie|kuja|polku|vej|vænget|gade|gatan|vägen|väg|laan|straat|gracht|plein|utca|ulica)\s\d)\d{0,4}[a-zA-Z]?(?![\p{L}\d])/uy;
const LETTER = /[\p{L}-]/u;

/**
 * Suffixed street names, found from the suffix and number and grown back to a capitalised word start, instead of
 * trying a capitalised word at every position of the text. `starts` are `numberStarts(text).all`: a digit after a
 * space is one. A match holds no space after its first character, so none starts inside another.
 */
export function findSuffixedStreets(text: string, starts: readonly number[]): Finding[] {
  const found: Finding[] = [];
  for (const at of starts) {
    if (at === 0) continue;
    SUFFIXED.lastIndex = at - 1;
    const m = SUFFIXED.exec(text);
    if (!m) continue;
    const suffix = m.index - m[1].length;
    let start = suffix;
    while (start > 0 && suffix - start < 30 && LETTER.test(text[start - 1])) start--;
    if (start === suffix || LETTER.test(text[start - 1] ?? '')) continue;
    if (!/\p{Lu}/u.test(text[start])) continue;
    found.push({ type: 'street_address', start, end: m.index + m[0].length });
  }
  return found;
}
