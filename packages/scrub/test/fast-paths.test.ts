// Each fast path against a simple reference scan. Fast paths tested elsewhere, each against its reference:
// anchored literal search and vendor, number and street starts (engine.test.ts), the literals a rule starts with
// (regex-planner.test.ts), character runs, lines with a backslash and the key-word look-back (validators.test.ts),
// redundant findings passed over (covered.test.ts), secretlint's preset windows (preset-windows.test.ts). Email
// and IPv6 addresses, grown from `@` and from colon pairs, are not compared with a reference scan.
import { describe, expect, it } from 'vitest';
import { throughputDocs, transcriptDocs } from '../../../bench/scrub/texts.js';
import { NUMBERED_STREET_RULE } from '../src/address.js';
import { findEncodedSecrets } from '../src/base64.js';
import { findEthereumKeys, findHighEntropyNearKeyWords } from '../src/context.js';
import { Covered } from '../src/covered.js';
import { detect } from '../src/detect.js';
import { numberStarts } from '../src/number-starts.js';
import { PHONE_RULE } from '../src/phone.js';
import { redact } from '../src/redact.js';
import { PII_RULES } from '../src/rules/pii.js';
import { AZURE_RULES, CONTEXT_RULES, TOKEN_RULES } from '../src/rules/secrets.js';
import { bip39ChecksumValid, findMnemonics, isBip39Word } from '../src/mnemonic.js';
import { findPrivateKeys } from '../src/pem.js';
import { findTelegramTokens } from '../src/telegram.js';
import { tokenRuns, vendorTokenStarts } from '../src/tokens.js';
import { alnum, applied, matchStarts, randomTexts, scanEach, seededPad } from './reference.js';

const pad = seededPad(17);
const hex = '0123456789abcdef';
/** Pieces of dense text: tokens, key words, digits and separators, escapes, home paths. */
const PIECES = [
  `ghp_${pad(alnum, 36)}`,
  `AKIA${pad('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 16)}`,
  `xoxb-${pad(alnum, 12)}`,
  `sk-${pad(alnum, 48)}`,
  pad(alnum, 40),
  pad(hex, 64),
  `0x${pad(hex, 64)}`,
  Buffer.from(`password=${pad(alnum, 12)}`).toString('base64'),
  'password',
  'api_key',
  'secret',
  'token',
  'private key',
  'eth',
  ' = ',
  ': ',
  '="',
  '"',
  "'",
  '\\',
  '\\n',
  '\\"',
  '\n',
  ' ',
  '123',
  '4111 1111 1111 1111',
  '555-0132',
  '+1 (415) ',
  '12 Main Street',
  '192.168.1.20',
  '123-45-6789',
  '/home/ana/',
  'C:\\Users\\bob\\',
  'C:\\\\Users\\\\eve\\\\',
  ':AA',
  '123456789',
  'bot',
  'x',
  'Q',
  '-',
  '_',
  '.',
  '/',
  '=',
];
const TEXTS = [
  throughputDocs()[0].slice(0, 200_000),
  transcriptDocs()[0].slice(0, 200_000),
  ...randomTexts(31, PIECES, 150, 120),
];

const USERNAME_RULES = PII_RULES.filter((r) => r.type === 'username');
const NUMBER_LED_RULES = [...PII_RULES.filter((r) => r.type !== 'username'), PHONE_RULE];

/** Whether every element of `needles` (ascending) is in `haystack` (ascending). */
function allIn(needles: readonly number[], haystack: readonly number[]): number[] {
  const set = new Set(haystack);
  return needles.filter((n) => !set.has(n));
}

describe('positions given to applyRules', () => {
  it('hold every position where a vendor token match may start', () => {
    let matches = 0;
    for (const text of TEXTS) {
      const starts = matchStarts(text, TOKEN_RULES);
      matches += starts.length;
      expect(allIn(starts, vendorTokenStarts(text, tokenRuns(text)))).toEqual([]);
    }
    expect(matches).toBeGreaterThan(300);
  });

  it('hold every position where an SSN, card, IPv4, phone or numbered street match may start', () => {
    let matches = 0;
    for (const text of TEXTS) {
      const starts = numberStarts(text);
      const numberLed = matchStarts(text, NUMBER_LED_RULES);
      const streets = matchStarts(text, [NUMBERED_STREET_RULE]);
      matches += numberLed.length + streets.length;
      expect(allIn(numberLed, starts.long)).toEqual([]);
      expect(allIn(streets, starts.streets)).toEqual([]);
      expect(allIn(starts.long, starts.all)).toEqual([]);
      expect(allIn(starts.streets, starts.all)).toEqual([]);
    }
    expect(matches).toBeGreaterThan(300);
  });
});

describe('finders that look only inside token runs', () => {
  it('find what they find over the whole text', () => {
    let found = 0;
    for (const text of TEXTS) {
      const runs = tokenRuns(text);
      const whole = [0, text.length];
      const eth = findEthereumKeys(text, whole);
      const entropy = findHighEntropyNearKeyWords(text, whole);
      const inner = (s: string) => applied(s, CONTEXT_RULES);
      const encoded = findEncodedSecrets(text, inner, 2, whole);
      found += eth.length + entropy.length + encoded.length;
      expect(findEthereumKeys(text, runs)).toEqual(eth);
      expect(findHighEntropyNearKeyWords(text, runs)).toEqual(entropy);
      expect(findEncodedSecrets(text, inner, 2, runs)).toEqual(encoded);
    }
    expect(found).toBeGreaterThan(100);
  });
});

describe('matches passed over as covered', () => {
  it('change no redaction: the context and high-entropy rules give the same text, report and spans', () => {
    for (const text of TEXTS) {
      const vendor = applied(text, TOKEN_RULES);
      const literalRules = [...AZURE_RULES, ...CONTEXT_RULES];
      const context = applied(text, literalRules, { covered: new Covered(vendor).covers });
      expect(redact(text, [...vendor, ...context])).toEqual(redact(text, [...vendor, ...applied(text, literalRules)]));
      const before = [...vendor, ...context];
      const entropy = findHighEntropyNearKeyWords(text, tokenRuns(text), new Covered(before).covers);
      const allEntropy = findHighEntropyNearKeyWords(text, tokenRuns(text));
      expect(redact(text, [...before, ...entropy])).toEqual(redact(text, [...before, ...allEntropy]));
    }
  });
});

describe('the raw-text pass', () => {
  it('loses nothing by reading only lines with a backslash, at the literals the decoded pass found', () => {
    const escaped = randomTexts(37, PIECES, 150, 60).map((t) => JSON.stringify(JSON.stringify({ content: t })));
    let matches = 0;
    for (const text of [...TEXTS, ...escaped]) {
      const found = detect(text);
      const everywhere = scanEach(text, [...CONTEXT_RULES, ...USERNAME_RULES]);
      matches += everywhere.length;
      expect(redact(text, [...found, ...everywhere])).toEqual(redact(text, found));
    }
    expect(matches).toBeGreaterThan(1000);
  });
});

describe('Telegram bot tokens found from each `:AA`', () => {
  it('are what a pattern over the whole text finds', () => {
    const reference = /(?:(?<![A-Za-z0-9_-])|(?<=bot))\d{8,10}:AA[A-Za-z0-9_-]{33}(?![A-Za-z0-9_-])/g;
    const pieces = ['1', '12345678', '123456789:AA', '9', 'bot', 'xbot', ':AA', pad(alnum, 33), 'A', '-', ' ', '/'];
    let found = 0;
    for (const text of [...TEXTS, ...randomTexts(41, pieces, 400, 40)]) {
      const expected = [...text.matchAll(reference)].map((m) => {
        return { type: 'telegram_bot_token', start: m.index, end: m.index + m[0].length };
      });
      found += expected.length;
      expect(findTelegramTokens(text)).toEqual(expected);
    }
    expect(found).toBeGreaterThan(20);
  });
});

describe('PEM private keys, END markers found once for all BEGIN markers', () => {
  it('are what a search for the next END marker after each BEGIN finds', () => {
    const BEGIN = /(?<!-)-{3,6} ?BEGIN[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)? ?-{3,6}(?!-)/g;
    const END = /(?<!-)-{3,6} ?END[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)? ?-{3,6}(?!-)/g;
    const BODY = /(?:[A-Za-z0-9+/=\s:,-]|\\[nr])*/y;
    const reference = (text: string) => {
      const found: { type: string; start: number; end: number }[] = [];
      let coveredTo = 0;
      for (const m of text.matchAll(BEGIN)) {
        if (m.index < coveredTo) continue;
        END.lastIndex = m.index;
        const e = END.exec(text);
        let end = e ? e.index + e[0].length : -1;
        if (end < 0 || end - m.index > 16_384) {
          BODY.lastIndex = m.index + m[0].length;
          BODY.exec(text.slice(0, m.index + 16_384));
          end = BODY.lastIndex;
        }
        found.push({ type: 'private_key', start: m.index, end });
        coveredTo = end;
      }
      return found;
    };
    const pieces = [
      '-----BEGIN RSA PRIVATE KEY-----',
      '-----END RSA PRIVATE KEY-----',
      '-----BEGIN PRIVATE KEY-----',
      '-----END OPENSSH PRIVATE KEY-----',
      'MIIEow',
      pad(alnum, 64),
      '\\n',
      '\n',
      ' ',
      '"',
      '}',
      'x',
    ];
    let found = 0;
    for (const text of [...TEXTS, ...randomTexts(43, pieces, 300, 30), 'x'.repeat(20_000)]) {
      const expected = reference(text);
      found += expected.length;
      expect(findPrivateKeys(text)).toEqual(expected);
    }
    expect(found).toBeGreaterThan(200);
  });
});

describe('BIP39 mnemonics, words read only in stretches where a regex sees twelve', () => {
  it('are what reading every lowercase word of the text finds', () => {
    const CONTEXT = /seed|mnemonic|recovery|phrase|secret/i;
    // The reference: every lowercase word, runs of wordlist words broken by anything but separators of a phrase.
    const reference = (text: string) => {
      const found: { type: string; start: number; end: number }[] = [];
      let run: { word: string; start: number; end: number }[] = [];
      const flush = () => {
        if (run.length >= 12) {
          let span: [number, number] | undefined;
          for (const n of [24, 21, 18, 15, 12]) {
            for (let i = 0; !span && i + n <= run.length && i < 64; i++) {
              if (bip39ChecksumValid(run.slice(i, i + n).map((r) => r.word))) span = [i, i + n];
            }
            if (span) break;
          }
          const before = text.slice(Math.max(0, run[0].start - 40), run[0].start);
          if (span) found.push({ type: 'bip39_mnemonic', start: run[span[0]].start, end: run[span[1] - 1].end });
          else if (CONTEXT.test(before)) {
            found.push({ type: 'bip39_mnemonic', start: run[0].start, end: run[run.length - 1].end });
          }
        }
        run = [];
      };
      let last = 0;
      for (const m of text.matchAll(/[a-z]+/g)) {
        // Only a phrase's characters may lie between two of its words; a word glued to a capital is no phrase word.
        if (!/^[a-z0-9 ,.)\t\r\n]*$/.test(text.slice(last, m.index))) flush();
        const glued = /[A-Z]/.test(text[m.index - 1] ?? '');
        if (isBip39Word(m[0]) && !glued) run.push({ word: m[0], start: m.index, end: m.index + m[0].length });
        else flush();
        last = m.index + m[0].length;
      }
      flush();
      return found;
    };
    const valid = 'legal winner thank year wave sausage worth useful legal winner thank yellow';
    const words = [valid, ...valid.split(' '), 'abandon', 'zoo', 'seed:', 'the', 'of', 'ok'];
    const pieces = [...words, ' ', ' ', ', ', '\n', '1. ', 'X', '-', '"'];
    let found = 0;
    for (const text of [...TEXTS, ...randomTexts(47, pieces, 300, 60), `${valid} ${valid}`, `seed ${valid}`]) {
      const expected = reference(text);
      found += expected.length;
      expect(findMnemonics(text)).toEqual(expected);
    }
    expect(found).toBeGreaterThan(20);
  });
});
