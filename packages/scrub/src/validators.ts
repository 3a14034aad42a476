/** Checksum and format validators for personal data. Pure functions; inputs may contain separators. */

const digitsOf = (s: string): string => s.replace(/\D/g, '');

/** Luhn (mod 10) check over the digits of `s`. */
export function luhnValid(s: string): boolean {
  const d = digitsOf(s);
  if (d.length === 0) return false;
  let sum = 0;
  for (let i = 0; i < d.length; i++) {
    let x = d.charCodeAt(d.length - 1 - i) - 48;
    if (i % 2 === 1) {
      x *= 2;
      if (x > 9) x -= 9;
    }
    sum += x;
  }
  return sum % 10 === 0;
}

/** Issuer prefixes and the lengths each issues; a Luhn-valid number outside them is more likely an id or timestamp. */
const CARD_RANGES: ReadonlyArray<readonly [RegExp, number, number]> = [
  [/^4/, 13, 19], // Visa
  [/^(?:5[1-5]|2(?:2[2-9]|[3-6]\d|7[01]|720))/, 16, 16], // Mastercard
  [/^3[47]/, 15, 15], // American Express
  [/^3(?:0[0-5]|09|6|8|9)/, 14, 19], // Diners Club
  [/^35/, 16, 19], // JCB (issued 3528-3589; test generators use all of 35xx)
  [/^(?:2131|1800)/, 15, 15], // JCB (legacy 15-digit)
  [/^(?:5[06-9]|6\d)/, 12, 19], // Maestro, Discover, UnionPay, and other 6-prefixed schemes
];

/** A payment card number: known issuer prefix and length, Luhn-valid, not one repeated digit. */
export function cardNumberValid(s: string): boolean {
  const d = digitsOf(s);
  if (/^(\d)\1*$/.test(d)) return false;
  const fits = CARD_RANGES.some(([re, min, max]) => re.test(d) && d.length >= min && d.length <= max);
  return fits && luhnValid(d);
}

/** IBAN length per country (ISO 13616 registry). */
export const IBAN_LENGTHS: Readonly<Record<string, number>> = {
  AD: 24,
  AE: 23,
  AL: 28,
  AT: 20,
  AZ: 28,
  BA: 20,
  BE: 16,
  BG: 22,
  BH: 22,
  BR: 29,
  BY: 28,
  CH: 21,
  CR: 22,
  CY: 28,
  CZ: 24,
  DE: 22,
  DK: 18,
  DO: 28,
  EE: 20,
  EG: 29,
  ES: 24,
  FI: 18,
  FO: 18,
  FR: 27,
  GB: 22,
  GE: 22,
  GI: 23,
  GL: 18,
  GR: 27,
  GT: 28,
  HR: 21,
  HU: 28,
  IE: 22,
  IL: 23,
  IQ: 23,
  IS: 26,
  IT: 27,
  JO: 30,
  KW: 30,
  KZ: 20,
  LB: 28,
  LC: 32,
  LI: 21,
  LT: 20,
  LU: 20,
  LV: 21,
  LY: 25,
  MC: 27,
  MD: 24,
  ME: 22,
  MK: 19,
  MR: 27,
  MT: 31,
  MU: 30,
  NL: 18,
  NO: 15,
  PK: 24,
  PL: 28,
  PS: 29,
  PT: 25,
  QA: 29,
  RO: 24,
  RS: 22,
  SA: 24,
  SC: 31,
  SD: 18,
  SE: 24,
  SI: 19,
  SK: 24,
  SM: 27,
  ST: 25,
  SV: 28,
  TL: 23,
  TN: 24,
  TR: 26,
  UA: 29,
  VA: 22,
  VG: 24,
  XK: 20,
};

/** IBAN: registered country, its exact length, and ISO 7064 mod 97 = 1. Spaces are ignored, case-insensitive. */
export function ibanValid(s: string): boolean {
  const iban = s.replace(/ /g, '').toUpperCase();
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]+$/.test(iban)) return false;
  if (IBAN_LENGTHS[iban.slice(0, 2)] !== iban.length) return false;
  const rearranged = iban.slice(4) + iban.slice(0, 4);
  // Piecewise remainder keeps every intermediate value well inside a double's exact integer range.
  let rem = 0;
  for (const ch of rearranged) {
    const code = ch.charCodeAt(0);
    const value = code >= 65 ? code - 55 : code - 48;
    rem = (value >= 10 ? rem * 100 + value : rem * 10 + value) % 97;
  }
  return rem === 1;
}

/** US SSN issuance rules: area not 000, 666 or 9xx; group not 00; serial not 0000. */
export function ssnValid(s: string): boolean {
  const d = digitsOf(s);
  if (d.length !== 9) return false;
  const area = d.slice(0, 3);
  return area !== '000' && area !== '666' && area[0] !== '9' && d.slice(3, 5) !== '00' && d.slice(5) !== '0000';
}

/** Dotted-quad IPv4 with each octet 0-255 and no leading zeros (which would read as octal or a version string). */
export function ipv4Valid(s: string): boolean {
  const parts = s.split('.');
  return parts.length === 4 && parts.every((p) => /^(?:0|[1-9]\d{0,2})$/.test(p) && Number(p) <= 255);
}
