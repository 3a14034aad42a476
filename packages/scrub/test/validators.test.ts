import { describe, expect, it } from 'vitest';
import { keywordBefore } from '../src/context.js';
import { looksRandom, shannonEntropy } from '../src/entropy.js';
import { linesWithBackslash } from '../src/lines.js';
import { bip39ChecksumValid, isBip39Word } from '../src/mnemonic.js';
import { phoneCandidateValid } from '../src/phone.js';
import { isPlaceholder } from '../src/placeholder.js';
import { charClass, runsOf } from '../src/runs.js';
import { cardNumberValid, ibanValid, ipv4Valid, luhnValid, ssnValid } from '../src/validators.js';
import { seededRandom } from '../../../test/support/random.js';

describe('luhn and card numbers', () => {
  it('accepts Luhn-valid numbers and rejects a changed digit', () => {
    expect(luhnValid('4111111111111111')).toBe(true);
    expect(luhnValid('4111 1111 1111 1111')).toBe(true);
    expect(luhnValid('4111111111111112')).toBe(false);
    expect(luhnValid('79927398713')).toBe(true);
    expect(luhnValid('')).toBe(false);
  });

  it('requires a known issuer prefix and length', () => {
    expect(cardNumberValid('4111111111111111')).toBe(true); // Visa
    expect(cardNumberValid('5555555555554444')).toBe(true); // Mastercard
    expect(cardNumberValid('378282246310005')).toBe(true); // Amex
    expect(cardNumberValid('6011111111111117')).toBe(true); // Discover
    expect(cardNumberValid('213176828496175')).toBe(true); // JCB 15
    // A Luhn-valid 13-digit millisecond timestamp is not a card.
    const ts = '1700000000004';
    expect(luhnValid(ts)).toBe(true);
    expect(cardNumberValid(ts)).toBe(false);
    expect(cardNumberValid('0000000000000000')).toBe(false);
    expect(cardNumberValid('37828224631000')).toBe(false); // Amex prefix, wrong length
  });
});

describe('IBAN', () => {
  it('checks country, length and mod 97', () => {
    expect(ibanValid('GB82WEST12345698765432')).toBe(true);
    expect(ibanValid('GB82 WEST 1234 5698 7654 32')).toBe(true);
    expect(ibanValid('de89370400440532013000')).toBe(true);
    expect(ibanValid('GB82WEST12345698765433')).toBe(false);
    expect(ibanValid('GB82WEST1234569876543')).toBe(false); // one short for GB
    expect(ibanValid('ZZ82WEST12345698765432')).toBe(false); // no such country
  });
});

describe('US SSN', () => {
  it('applies the issuance rules', () => {
    expect(ssnValid('078-05-1120')).toBe(true);
    expect(ssnValid('460899847')).toBe(true);
    for (const bad of ['000-12-3456', '666-12-3456', '900-12-3456', '123-00-4567', '123-45-0000', '12-345-678']) {
      expect(ssnValid(bad)).toBe(false);
    }
  });
});

describe('IPv4', () => {
  it('accepts dotted quads in range without leading zeros', () => {
    expect(ipv4Valid('106.31.73.20')).toBe(true);
    expect(ipv4Valid('0.0.0.0')).toBe(true);
    expect(ipv4Valid('256.1.1.1')).toBe(false);
    expect(ipv4Valid('01.2.3.4')).toBe(false);
    expect(ipv4Valid('1.2.3')).toBe(false);
  });
});

describe('BIP39', () => {
  const valid = 'legal winner thank year wave sausage worth useful legal winner thank yellow'.split(' ');
  it('knows the English wordlist', () => {
    expect(isBip39Word('abandon')).toBe(true);
    expect(isBip39Word('zoo')).toBe(true);
    expect(isBip39Word('the')).toBe(false);
  });
  it('verifies the checksum for 12 and 24 words', () => {
    expect(bip39ChecksumValid(valid)).toBe(true);
    expect(bip39ChecksumValid([...valid.slice(0, 11), 'wave'])).toBe(false);
    expect(bip39ChecksumValid([...Array(23).fill('abandon'), 'art'])).toBe(true);
    expect(bip39ChecksumValid(valid.slice(0, 11))).toBe(false);
    expect(bip39ChecksumValid([...valid.slice(0, 11), 'the'])).toBe(false);
  });
});

describe('phone candidates', () => {
  it('accepts national and international formats', () => {
    for (const p of [
      '905-674-3793',
      '(37) 788-063',
      '07700 063 966',
      '+46 (0)8 928 571 38',
      '03.93.92.16.85',
      '345-899-3560x4587',
      '9498777106',
      '+1-984-182-0190',
      '467 3395',
    ]) {
      expect(phoneCandidateValid(p), p).toBe(true);
    }
  });
  it('rejects dates, timestamps, year ranges, decimals and quads', () => {
    for (const n of [
      '2024-01-15',
      '15.01.2024',
      '1700000000',
      '2019-2023',
      '0.123 0.456',
      '192.168.100.200',
      '460-89-9847',
      '123456',
    ]) {
      expect(phoneCandidateValid(n), n).toBe(false);
    }
  });
});

describe('entropy and placeholders', () => {
  it('measures entropy', () => {
    expect(shannonEntropy('aaaa')).toBe(0);
    expect(shannonEntropy('abcd')).toBe(2);
  });
  it('tells random tokens from words', () => {
    expect(looksRandom('x9Fq2LmZ0pQ7rT4s')).toBe(true);
    expect(looksRandom('authentication')).toBe(false);
    expect(looksRandom('1111111111111')).toBe(false);
  });
  it('recognises placeholders and references', () => {
    for (const p of [
      '<token>',
      'YOUR_API_KEY',
      'sk-...',
      '${DB_PASSWORD}',
      '****',
      'xxxxxxxx',
      'changeme',
      'process.env.TOKEN',
    ]) {
      expect(isPlaceholder(p), p).toBe(true);
    }
    expect(isPlaceholder('hunter2')).toBe(false);
    expect(isPlaceholder('x9Fq2LmZ0pQ7rT4s')).toBe(false);
  });
});

describe('character runs', () => {
  it('builds classes from ranges and single characters', () => {
    const t = charClass('a-c_-');
    expect(['a', 'b', 'c', '_', '-'].map((c) => t[c.charCodeAt(0)])).toEqual([1, 1, 1, 1, 1]);
    expect(t['d'.charCodeAt(0)]).toBe(0);
  });
  it('visits maximal runs of at least the minimum length, non-ASCII ending a run', () => {
    const runs: Array<[number, number]> = [];
    runsOf('ab abcd-abc\u00e9abcde', charClass('a-e'), 3, (s, e) => runs.push([s, e]));
    expect(runs).toEqual([
      [3, 7],
      [8, 11],
      [12, 17],
    ]);
  });
  it('reads only the given ranges, cutting runs at their ends', () => {
    const runs: Array<[number, number]> = [];
    runsOf('abc abcd abcde', charClass('a-e'), 2, (s, e) => runs.push([s, e]), [1, 6, 7, 12]);
    expect(runs).toEqual([
      [1, 3],
      [4, 6],
      [9, 12],
    ]);
  });
  it('finds the same runs as reading every character, whatever the run lengths', () => {
    const table = charClass('a-c');
    const random = seededRandom(11);
    for (let trial = 0; trial < 200; trial++) {
      const text = Array.from({ length: 1 + (trial % 97) }, () => 'abcx'[random() % 4]).join('');
      for (const min of [1, 2, 3, 5, 8]) {
        const expected = [...text.matchAll(/[a-c]+/g)]
          .filter((m) => m[0].length >= min)
          .map((m) => [m.index, m.index + m[0].length]);
        const runs: Array<[number, number]> = [];
        runsOf(text, table, min, (s, e) => runs.push([s, e]));
        expect(runs).toEqual(expected);
      }
    }
  });
});

describe('lines with a backslash', () => {
  it('gives each such line with its neighbours, joining parts that touch', () => {
    const text = ['a', 'b', 'c\\n', 'd', 'e', 'f', 'g\\t', 'h\\r', 'i', 'j'].join('\n');
    const parts = linesWithBackslash(text).map(([s, e]) => text.slice(s, e));
    expect(parts).toEqual(['b\nc\\n\nd', 'f\ng\\t\nh\\r\ni']);
    expect(linesWithBackslash('no escapes\nhere')).toEqual([]);
    expect(linesWithBackslash('\\')).toEqual([[0, 1]]);
    expect(linesWithBackslash('\n\nx\\')).toEqual([[1, 4]]);
  });
  it('covers every line that holds a backslash, whatever the layout', () => {
    const random = seededRandom(7);
    for (let trial = 0; trial < 200; trial++) {
      const text = Array.from({ length: 1 + (trial % 61) }, () => 'a\\\n'[random() % 3]).join('');
      const parts = linesWithBackslash(text);
      for (let i = 1; i < parts.length; i++) expect(parts[i][0]).toBeGreaterThan(parts[i - 1][1]);
      let lineStart = 0;
      for (const line of text.split('\n')) {
        const end = lineStart + line.length;
        if (line.includes('\\')) expect(parts.some(([s, e]) => s <= lineStart && end <= e)).toBe(true);
        lineStart = end + 1;
      }
    }
  });
});

describe('key word before a token', () => {
  const KEY = /key|token/gi;
  const at = (text: string, token: string) => keywordBefore(text, text.indexOf(token), KEY);
  it('needs a key word ending at most 48 characters before the token, on its line', () => {
    expect(at('api KEY = abc123', 'abc123')).toBe(true);
    expect(at(`token${' '.repeat(47)}abc123`, 'abc123')).toBe(true);
    expect(at(`token${' '.repeat(48)}abc123`, 'abc123')).toBe(false);
    expect(at('token\nabc123', 'abc123')).toBe(false);
    expect(at('abc123 token', 'abc123')).toBe(false);
  });
  it('sees the characters around the window, as a whole-text search would', () => {
    const PK = /\bpk\b/g;
    expect(keywordBefore('pk abc', 3, PK)).toBe(true);
    expect(keywordBefore('pkabc', 2, PK)).toBe(false);
    expect(keywordBefore(`x${' '.repeat(60)}spk abc`, 66, PK)).toBe(false);
  });
});
