import { describe, expect, it } from 'vitest';
import { scrub, scrubAsync } from '../src/index.js';
import type { ScrubResult } from '../src/index.js';

/** Seeded PRNG so a failing input can be reproduced. */
function prng(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Structural invariants every result must satisfy, whatever the input. */
function checkResult(input: string, r: ScrubResult) {
  let last = 0;
  for (const f of r.findings) {
    expect(f.start).toBeGreaterThanOrEqual(last);
    expect(f.end).toBeGreaterThan(f.start);
    expect(f.end).toBeLessThanOrEqual(input.length);
    last = f.end;
  }
  expect(r.report.clean).toBe(r.findings.length === 0);
  if (r.report.clean) expect(r.text).toBe(input);
}

const MB = 1 << 20;
const PATHOLOGICAL: Record<string, string> = {
  'a x 1MB': 'a'.repeat(MB),
  'password= repeated': 'password='.repeat(MB / 9),
  'token: " repeated': 'token: "'.repeat(MB / 8),
  'eyJ repeated': 'eyJ'.repeat(MB / 3),
  digits: '7'.repeat(MB),
  'digit space': '1 '.repeat(MB / 2),
  backslashes: '\\'.repeat(MB),
  'escaped newlines': '\\n'.repeat(MB / 2),
  'unicode escapes': '\\u0041'.repeat(MB / 6),
  'BEGIN markers': '-----BEGIN PRIVATE KEY-----'.repeat(MB / 27),
  'base64 lines and END markers': 'QUJD\n-----END PRIVATE KEY-----'.repeat(MB / 30),
  'netrc words': 'machine a login b account c '.repeat(MB / 28),
  'mysql flags': 'mysql -u a -p '.repeat(MB / 14),
  'wordlist words': 'abandon '.repeat(MB / 8),
  'at signs': 'a@'.repeat(MB / 2),
  'base64 run': 'QUJD'.repeat(MB / 4),
  colons: 'a:'.repeat(MB / 2),
  'hex colons': 'ab:'.repeat(MB / 3),
  'dotted digits': '1.'.repeat(MB / 2),
  'url userinfo': 'x://a:b@'.repeat(MB / 8),
  schemes: 'https://'.repeat(MB / 8),
  hex: 'ab'.repeat(MB / 2),
  'home dirs': '/home/'.repeat(MB / 6),
  'key words': 'api key '.repeat(MB / 8),
  'street suffixes': 'Astrasse 1'.repeat(MB / 10),
  'twilio key and secret pairs': "SK0123456789abcdef0123456789abcdef', '".repeat(MB / 38),
  'hardhat accounts': 'accounts: ["0x'.repeat(MB / 15),
};

describe('adversarial input', () => {
  for (const [name, input] of Object.entries(PATHOLOGICAL)) {
    it(`completes on ${name}`, () => {
      const r = scrub(input);
      checkResult(input, r);
    });
  }

  it('completes on 1 MB of random printable text and random bytes, both APIs', async () => {
    const rand = prng(42);
    const printable = Array.from({ length: MB }, () => String.fromCharCode(32 + Math.floor(rand() * 95))).join('');
    const binary = Array.from({ length: MB / 4 }, () => String.fromCharCode(Math.floor(rand() * 0x10000))).join('');
    for (const input of [printable, binary]) {
      checkResult(input, scrub(input));
      checkResult(input, await scrubAsync(input));
    }
  });

  it('keeps its invariants on many random mixes of secret-like fragments', () => {
    const rand = prng(7);
    const fragments = [
      'password=',
      'ghp_',
      'sk-',
      '\\"',
      '\\n',
      'eyJ',
      '@',
      '.',
      ':',
      '//',
      '0x',
      'key ',
      ' ',
      '4111',
      '-',
      'AKIA',
      '\n',
      'abandon ',
      '1',
      'a',
      'Z',
      '=',
    ];
    for (let i = 0; i < 300; i++) {
      const input = Array.from(
        { length: 50 + Math.floor(rand() * 400) },
        () => fragments[Math.floor(rand() * fragments.length)],
      ).join('');
      const r = scrub(input);
      checkResult(input, r);
      // Scrubbing its own output finds nothing new inside the placeholders.
      expect(scrub(r.text).text.match(/\[REDACTED:/g)?.length ?? 0).toBeGreaterThanOrEqual(r.findings.length);
    }
  });
});
