import { charClass, isSpace } from './runs.js';

/**
 * A digit with no word character before it, or a `+` or `(` that a digit follows (`+(` too). Every rule that
 * `numberStarts` serves starts with a lookbehind rejecting a word character before its first digit, or is the phone
 * rule, which may open with `+` and `(`. Each match is one character wide, so `test` and `lastIndex` tell where it
 * is without building a match array for each of the many starts of dense text.
 */
const NUMBER_START = /(?<![A-Za-z0-9_])[0-9]|\+(?=\(?[0-9])|\((?=[0-9])/g;
/** What SSN, card, IPv4 and phone matches are made of, and the length of the shortest (1.1.1.1, 5550132). */
const NUMBER_CHARS = charClass('0-9().+ -');
const MIN_NUMBER = 7;

export interface NumberStarts {
  /** Where a number-led match can start (SSN, card, IPv4, phone, numbered street), ascending. */
  all: number[];
  /** Those that a run of at least MIN_NUMBER NUMBER_CHARS starts at: where an SSN, card, IPv4 or phone can start. */
  long: number[];
  /** Those where a numbered street can start: one to six digits, maybe a letter, a space and a capital (14 Crown). */
  streets: number[];
}

const isDigit = (c: number): boolean => c >= 48 && c <= 57;
const isLetter = (c: number): boolean => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);

function opensStreet(text: string, at: number): boolean {
  let i = at;
  while (i < at + 7 && isDigit(text.charCodeAt(i))) i++;
  if (i === at || i === at + 7) return false;
  if (isLetter(text.charCodeAt(i))) i++;
  const capital = text.charCodeAt(i + 1);
  return isSpace(text.charCodeAt(i)) && capital >= 65 && capital <= 90;
}

/**
 * The number starts of `text`, for `applyRules`' `at`. One search for them, and each rule tried only there, instead
 * of each rule's own pass over every digit of the text: digits are common, number starts rarer, and starts that
 * open seven characters of digits and separators rarer still.
 */
export function numberStarts(text: string): NumberStarts {
  const all: number[] = [];
  const long: number[] = [];
  const streets: number[] = [];
  NUMBER_START.lastIndex = 0;
  while (NUMBER_START.test(text)) {
    const at = NUMBER_START.lastIndex - 1; // `+(5`: the `(` is looked at next
    all.push(at);
    if (opensStreet(text, at)) streets.push(at);
    if (at + MIN_NUMBER > text.length) continue;
    let i = at + 1;
    for (; i < at + MIN_NUMBER; i++) {
      const c = text.charCodeAt(i);
      if (c >= 128 || NUMBER_CHARS[c] === 0) break;
    }
    if (i === at + MIN_NUMBER) long.push(at);
  }
  return { all, long, streets };
}
