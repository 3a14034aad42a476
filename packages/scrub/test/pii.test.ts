import { describe, expect, it } from 'vitest';
import { scrub } from '../src/index.js';

const only = (text: string) => scrub(text).findings.map((f) => [f.type, text.slice(f.start, f.end)]);

describe('personal data', () => {
  it('emails, not git remotes or URL passwords', () => {
    expect(only('write to UtaKortig@jourrapide.com.')).toEqual([['email', 'UtaKortig@jourrapide.com']]);
    expect(scrub('git@github.com:acme/app.git').report.clean).toBe(true);
    expect(scrub('npm i @axle/extractor').report.clean).toBe(true);
  });

  it('emails with letters beyond ASCII, whole: none of the name is left beside the placeholder', () => {
    for (const e of [
      'françois.dupont@exemple.fr',
      'zoë+news@gmail.com',
      'Müller@firma.de',
      'jörg.müller@bücher.de',
      'jorg@bücher.de',
      'δοκιμή@παράδειγμα.δοκιμή',
      '用户@例子.广告',
      'ram@xn--p1ai.xn--p1ai',
    ]) {
      expect(only(`write to ${e}, thanks`), e).toEqual([['email', e]]);
    }
    expect(scrub('npm i @scopé/pkg and café@ noon').report.clean).toBe(true);
  });

  it('retina image names are not emails', () => {
    for (const t of ['logo@2x.png', 'src="img/hero@3x.webp"', 'icon@1.5x.jpg']) {
      expect(scrub(t).report.clean, t).toBe(true);
    }
    expect(only('mail ops@2xlabs.io')).toEqual([['email', 'ops@2xlabs.io']]);
  });

  it('phone numbers in national and international formats', () => {
    for (const p of ['905-674-3793', '+46 (0)8 928 571 38', '03.93.92.16.85', '(579)888-3058', '+1-604-696-5272x565']) {
      expect(only(`call ${p} today`), p).toEqual([['phone_number', p]]);
    }
    expect(only('(37) 788-063-Office')).toEqual([['phone_number', '(37) 788-063']]);
    for (const n of [
      'on 2024-01-15 at',
      'build 10.0.19045.2965',
      'took 1700000000 ms',
      'rows 1 2 3',
      'Street 28919 136',
      'zip 3610-114',
      // A one-digit last group is a check digit.
      'ISBN 978-3-16-148410-0',
      'order 1043-5873-0612-7 not found',
    ]) {
      expect(scrub(n).report.clean, n).toBe(true);
    }
  });

  it('card numbers that pass Luhn and an issuer check', () => {
    expect(only('card 4111 1111 1111 1111 exp')).toEqual([['credit_card', '4111 1111 1111 1111']]);
    expect(only('card 378282246310005.')).toEqual([['credit_card', '378282246310005']]);
    expect(scrub('card 4111 1111 1111 1112 exp').findings.some((f) => f.type === 'credit_card')).toBe(false);
    expect(scrub('"updated_at": 1700000000004').report.clean).toBe(true);
  });

  it('IBANs that pass mod 97, printed or compact, in any case', () => {
    expect(only('to GB82 WEST 1234 5698 7654 32 from')).toEqual([['iban', 'GB82 WEST 1234 5698 7654 32']]);
    expect(only('iban gb42nawi04454264788619')).toEqual([['iban', 'gb42nawi04454264788619']]);
    expect(only('to GB82 WEST 1234 5698 7654 32 ABCD')[0]).toEqual(['iban', 'GB82 WEST 1234 5698 7654 32']);
    expect(scrub('GB82WEST12345698765433').report.clean).toBe(true);
  });

  it('IPv4 and IPv6 addresses, not loopback, versions or times', () => {
    expect(only('from 106.31.73.20 via 2001:db8:85a3::8a2e:370:7334')).toEqual([
      ['ip_address', '106.31.73.20'],
      ['ip_address', '2001:db8:85a3::8a2e:370:7334'],
    ]);
    for (const n of [
      'listen 127.0.0.1:8080',
      'at 12:30:45',
      'std::vec::Vec',
      'v1.2.3.4',
      'mac 00:1a:2b:3c:4d:5e',
      'host ::1',
    ]) {
      expect(scrub(n).report.clean, n).toBe(true);
    }
  });

  it('US SSNs under the issuance rules', () => {
    expect(only("Here's my SSN: 460-89-9847")).toEqual([['us_ssn', '460-89-9847']]);
    expect(only('social security number 460899847')).toEqual([['us_ssn', '460899847']]);
    expect(scrub('order 666-12-3456').findings.some((f) => f.type === 'us_ssn')).toBe(false);
    expect(scrub('id 460899847').report.clean).toBe(true);
  });

  it('user names in home directory paths', () => {
    expect(scrub('/home/alice/src and /Users/bob/Library').text).toBe(
      '/home/[REDACTED:username]/src and /Users/[REDACTED:username]/Library',
    );
    expect(scrub('C:\\Users\\nick\\AppData').text).toBe('C:\\Users\\[REDACTED:username]\\AppData');
    expect(scrub(JSON.stringify({ cwd: 'C:\\Users\\bob\\code' })).text).toBe(
      '{"cwd":"C:\\\\Users\\\\[REDACTED:username]\\\\code"}',
    );
    expect(scrub('/home/runner/work and /Users/Shared').report.clean).toBe(true);
  });

  it('street addresses in common forms', () => {
    expect(only('lives at 1668 Glyn St now')).toEqual([['street_address', '1668 Glyn St']]);
    expect(only('Puruntie 82, Helsinki')).toEqual([['street_address', 'Puruntie 82']]);
    expect(only('Rua do Arenque 1634')).toEqual([['street_address', 'Rua do Arenque 1634']]);
  });
});
