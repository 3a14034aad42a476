import { isPossiblePhoneNumber, isValidPhoneNumber } from 'libphonenumber-js';
import type { Rule } from './engine.js';

const EXTENSION = /\s?(?:x|ext\.?)\s?\d{1,6}$/;
const DATE = /^(?:\d{4}[-./ ]\d{1,2}[-./ ]\d{1,2}|\d{1,2}[-./ ]\d{1,2}[-./ ]\d{2,4})$/;
const YEAR_RANGE = /^(?:19|20)\d{2}\s?-\s?(?:19|20)\d{2}$/;

/**
 * Whether a digit run with separators reads as a phone number. International numbers (+ or 00) are checked
 * against libphonenumber's numbering plans; bare digit runs must be valid US numbers (so timestamps and ids are
 * not); national formats with separators are accepted on shape, since their country is unknown.
 */
export function phoneCandidateValid(candidate: string): boolean {
  const main = candidate.replace(EXTENSION, '');
  const digits = main.replace(/\D/g, '');
  if (digits.length < 7 || digits.length > 15) return false;
  if (/\s{2}/.test(main) || main.includes('(') !== main.includes(')')) return false;
  if (main.startsWith('+') || main.startsWith('00')) {
    return isPossiblePhoneNumber(main.startsWith('+') ? main : `+${main.replace(/^00[- ]?/, '')}`);
  }
  if (!/[\s().-]/.test(main)) {
    // NANP shape first (area code 2-9, optional leading 1): cheap, and spares libphonenumber most ids.
    return /^1?[2-9]\d{2}[2-9]\d{6}$/.test(digits) && isValidPhoneNumber(main, 'US');
  }
  if (DATE.test(main) || YEAR_RANGE.test(main)) return false;
  // SSN-shaped runs belong to the SSN rule, dotted quads to the IP rule.
  if (/^\d{3}-\d{2}-\d{4}$/.test(main) || /^\d{1,3}(?:\.\d{1,3}){3}$/.test(main)) return false;
  // Dots as separators only in all-dot forms (03.93.92.16.85), so decimals in a table are not read as one number.
  const groups = main.split(/\D+/).filter(Boolean);
  if (main.includes('.')) {
    if (/[\s-]/.test(main.replace(/^\(\d+\)\s?/, '')) || groups.length < 3) return false;
    // Dotted phone groups hold 2 to 4 digits; version and build numbers (10.0.19045.2965) do not.
    if (groups.some((g) => g.length < 2 || g.length > 4)) return false;
  }
  // Two groups are a local number (467 3395, 99 668472) only when the second is the longer one; the other way
  // round they are usually a house number and a postcode (28919 136) or a postcode with a suffix (3610-114).
  if (groups.length === 2 && (groups[1].length < 4 || groups[1].length < groups[0].length)) return false;
  // A last group of one digit is a check digit (ISBN 978-3-16-148410-0, order 1043-5873-0612-7), not a phone's.
  if (groups.length > 1 && groups[groups.length - 1].length === 1) return false;
  return groups.length <= 7 && groups.filter((g) => g.length === 1).length <= 2;
}

export const PHONE_RULE: Rule = {
  type: 'phone_number',
  pattern: /(?<![\w.+/#:@=$-])(?:\+|00)?\(?\d[\d ().-]{5,24}\d(?:\s?(?:x|ext\.?)\s?\d{1,6})?(?![\w/@:]|[-.]\d)/g,
  accept: phoneCandidateValid,
};
