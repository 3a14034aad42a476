import { describe, expect, it } from 'vitest';
import { throughputDocs } from '../../../bench/scrub/texts.js';
import { seededRandom } from '../../../test/support/random.js';
import { findSuffixedStreets, NUMBERED_STREET_RULE } from '../src/address.js';
import { applyRules, type Rule } from '../src/engine.js';
import { numberStarts } from '../src/number-starts.js';
import { PHONE_RULE } from '../src/phone.js';
import { PII_RULES } from '../src/rules/pii.js';
import { AZURE_RULES, CONTEXT_RULES, TOKEN_RULES } from '../src/rules/secrets.js';
import { tokenRuns, vendorTokenStarts } from '../src/tokens.js';
import type { Finding } from '../src/types.js';
import { alnum, applied, scanEach, seededPad } from './reference.js';

/** Every vendor rule: the token rules and Azure's. */
const PROVIDER_RULES = [...TOKEN_RULES, ...AZURE_RULES];

describe('anchored rule scanning', () => {
  it('finds what scanning each rule over the whole text finds, in rule order', () => {
    const pad = seededPad(7);
    const text = [
      `ghp_${pad(alnum, 36)} xghp_${pad(alnum, 36)} sk-ant-api03-${pad(alnum, 40)} sk-proj-${pad(alnum, 32)}`,
      `https://hooks.slack.com/services/${pad(alnum, 24)} https://discord.com/api/webhooks/12345/${pad(alnum, 60)}`,
      `gsk_${pad(alnum, 52)}ghp_${pad(alnum, 36)} AKIA${pad(alnum.slice(0, 26), 16)} sk_live_${pad(alnum, 24)} sk_live_${pad(alnum, 24)}`,
      `doo_v1_${pad('0123456789abcdef', 64)} hvs.${pad(alnum, 30)} eyJhbGciOiJI.eyJzdWIiOi.${pad(alnum, 20)}`,
    ].join('\n');
    const expected = scanEach(text, PROVIDER_RULES);
    expect(expected.length).toBeGreaterThanOrEqual(10);
    expect(applied(text, PROVIDER_RULES)).toEqual(expected);
  });

  it('finds the vendor tokens at the token starts of long token runs, as scanning each rule finds them', () => {
    const pad = seededPad(11);
    const text = [
      // After '/', '=', ':' and '.', inside longer runs; the shortest token (xoxb- and ten) at a run's end.
      `url=https://x.io/ghp_${pad(alnum, 36)}/y KEY=AKIA${pad('ABCDEFGHIJKLMNOPQRSTUVWXYZ', 16)} a:xoxb-${pad(alnum, 10)}`,
      `M${pad(alnum, 25)}.${pad(alnum, 6)}.${pad(alnum, 30)} https://hooks.slack.com/services/${pad(alnum, 24)}`,
      `x.eyJ${pad(alnum, 12)}.eyJ${pad(alnum, 8)}.${pad(alnum, 10)} whsec_${pad(alnum, 30)}== xghp_${pad(alnum, 36)}`,
    ].join('\n');
    const expected = scanEach(text, TOKEN_RULES);
    expect(expected.map((f) => f.type).sort()).toEqual([
      'aws_access_key',
      'discord_bot_token',
      'github_token',
      'jwt',
      'slack_token',
      'slack_webhook',
      'stripe_webhook_secret',
    ]);
    expect(applied(text, TOKEN_RULES, { at: vendorTokenStarts(text, tokenRuns(text)) })).toEqual(expected);
  });

  it('finds the same with case-insensitive rules, whose literals are looked for in any case', () => {
    const text = [
      'PASSWORD=Hunter2hunter export API_KEY="a8Fk2LqP9zXw3RtY" --password s3cret!x curl -u bob:Pa55word',
      'Authorization: Bearer eyJhbGciOi.eyJzdWIiOi.c2lnbmF0dXJl Set-Cookie: session=9f8Ak2Lq; Path=/',
      'postgres://app:Sup3rS3cret@db.local/x AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEK',
      'PROXY-AUTHORIZATION: Basic YWxhZGRpbjpvcGVuc2VzYW1l; SeCrEt: "v4lu3-0f-s3cr3t" BEARER notatoken',
    ].join('\n');
    const expected = scanEach(text, CONTEXT_RULES);
    expect(expected.length).toBeGreaterThanOrEqual(10);
    expect(applied(text, CONTEXT_RULES)).toEqual(expected);
  });

  it('finds the same with case-sensitive and case-insensitive rules in one list', () => {
    const text = [
      'ghp_0123456789abcdefghijABCDEFGHIJ012345 SECRET_KEY=9fQ2LmZ0pQ7rT4sAx secret_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQ',
      'sk-proj-9fQ2LmZ0pQ7rT4sAxK8bN3vC SK0123456789abcdef0123456789abcdef Sk-notakey token: "a8Fk2LqP9zXw3RtY"',
    ].join('\n');
    const rules = [...PROVIDER_RULES, ...CONTEXT_RULES];
    const expected = scanEach(text, rules);
    expect(expected.length).toBeGreaterThanOrEqual(5);
    expect(applied(text, rules)).toEqual(expected);
  });

  it('reports where it found anchor literals, and finds the same when given those positions', () => {
    const text = 'PASSWORD=Hunter2hunter --token abc123xyz789 cookie: a=1 x-api-key: 9fQ2LmZ0pQ7rT4sA';
    const seen: number[] = [];
    const scanned: Finding[] = [];
    applyRules(text, CONTEXT_RULES, scanned, { seen });
    expect(scanned.length).toBeGreaterThanOrEqual(3);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    const given: Finding[] = [];
    // Positions where no literal starts are skipped.
    applyRules(text, CONTEXT_RULES, given, { at: [0, 1, ...seen.filter((p) => p > 1)] });
    expect(given).toEqual(scanned);
    const none: Finding[] = [];
    applyRules(text, CONTEXT_RULES, none, { at: [] });
    expect(none).toEqual([]);
  });

  it('finds the number-led personal data at the number starts, as scanning each rule finds it', () => {
    // SSN, card, IPv4 and phone at the starts of long number runs; numbered streets where one can start.
    const long = [...PII_RULES.filter((r) => r.type !== 'username'), PHONE_RULE];
    const rules = [...long, NUMBERED_STREET_RULE];
    const atStarts = (t: string) => {
      const starts = numberStarts(t);
      return [...applied(t, long, { at: starts.long }), ...applied(t, [NUMBERED_STREET_RULE], { at: starts.streets })];
    };
    const text = [
      'SSN 123-45-6789, card 4111 1111 1111 1111, 4012888888881881 ip 192.168.10.20 or 1.2.3.4, call +1 (415) 555-0132',
      'or +(44) 20 7946 0958, (212) 555-0188, 0044 20 7946 0958 at 221B Baker Street, 14 Crown Street Apt. 4, 100200\u00a0Main Street',
      'x4111111111111111 v1.2.3.4 a-123-45-6789 id.234-56-7890 #5551234567 +x5 ((415) 555-0132 ++1 415 555 0132 _12 Main St',
    ].join('\n');
    const expected = scanEach(text, rules);
    expect(new Set(expected.map((f) => f.type))).toEqual(
      new Set(['us_ssn', 'credit_card', 'ip_address', 'phone_number', 'street_address']),
    );
    expect(atStarts(text)).toEqual(expected);
    // Random text of digits, separators, capitalised words and street names: the same findings, rule by rule.
    const random = seededRandom(5);
    const pieces = [
      '1',
      '0',
      '44',
      '555',
      '4111',
      '192.',
      '-',
      ' ',
      '(',
      ')',
      '+',
      '.',
      '/',
      '_',
      'a',
      'B',
      'Main ',
      'St',
      'Street',
      '\n',
      '\u00a0',
      'é',
    ];
    for (let n = 0; n < 200; n++) {
      let t = '';
      for (let i = 0; i < 400; i++) t += pieces[Math.floor(random() * pieces.length)];
      expect(atStarts(t)).toEqual(scanEach(t, rules));
    }
  });

  it('finds the suffixed street names at the number starts that it would find at every position', () => {
    const everywhere = (t: string) => Array.from({ length: t.length }, (_, i) => i);
    const text =
      'Koskikatu 25, Bundesstrasse 31b Præstevænget\u00a015 Storgatan 3 x9 Hauptstraße\t7 Storgatan 12 Storgatan 1234567';
    expect(findSuffixedStreets(text, numberStarts(text).all).map((f) => text.slice(f.start, f.end))).toEqual([
      'Koskikatu 25',
      'Bundesstrasse 31b',
      'Præstevænget\u00a015',
      'Storgatan 3',
      'Hauptstraße\t7',
      'Storgatan 12',
    ]);
    const random = seededRandom(9);
    const pieces = ['Koski', 'katu', 'Weg', 'weg', ' ', '\u00a0', '\t', '1', '25', 'b', '-', ',', 'Straße', 'x'];
    for (let n = 0; n < 300; n++) {
      let t = '';
      for (let i = 0; i < 200; i++) t += pieces[Math.floor(random() * pieces.length)];
      expect(findSuffixedStreets(t, numberStarts(t).all)).toEqual(findSuffixedStreets(t, everywhere(t)));
    }
  });
});

describe('rule accept() functions', () => {
  it('never run rules again: applyRules refuses to be entered from one, and works after refusing', () => {
    const inner: Rule[] = [{ type: 'inner', pattern: /b/g }];
    const reentrant: Rule[] = [
      { type: 'outer', pattern: /a/g, accept: (_v, _m, text) => applied(text, inner).length > 0 },
    ];
    expect(() => applied('ab', reentrant)).toThrow(/entered again/);
    expect(applied('ab', inner)).toEqual([{ type: 'inner', start: 1, end: 2 }]);
  });

  it('of every rule of the scrubber run on the bench texts without entering applyRules again', () => {
    const rules = [...PROVIDER_RULES, ...CONTEXT_RULES, ...PII_RULES, PHONE_RULE, NUMBERED_STREET_RULE];
    expect(rules.filter((r) => r.accept).length).toBeGreaterThan(10);
    const text = throughputDocs()[0];
    expect(applied(text, rules).length).toBeGreaterThan(1000);
  });
});
