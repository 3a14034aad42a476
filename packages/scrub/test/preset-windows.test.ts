import { lintSource } from '@secretlint/core';
import presetPackage from '@secretlint/secretlint-rule-preset-recommend/package.json' with { type: 'json' };
import { creator as recommendPreset, rules } from '@secretlint/secretlint-rule-preset-recommend';
import { describe, expect, it } from 'vitest';
import { throughputDocs, transcriptDocs } from '../../../bench/scrub/texts.js';
import { presetWindows } from '../src/preset-windows.js';
import { isSpace } from '../src/runs.js';
import { neutraliseDirectives, secretlintFindings, typeOf } from '../src/secretlint.js';
import { seededRandom } from '../../../test/support/random.js';

/** The reference: lintSource over the whole text. */
async function wholeText(text: string) {
  const result = await lintSource({
    source: { filePath: '/transcript.txt', content: neutraliseDirectives(text), contentType: 'text' },
    options: {
      config: { rules: [{ id: '@secretlint/secretlint-rule-preset-recommend', rule: recommendPreset }] },
      noPhysicFilePath: true,
    },
  });
  const shift = text.charCodeAt(0) === 0xfeff ? 1 : 0; // secretlint drops a leading byte-order mark
  return result.messages.map((m) => ({
    type: typeOf(m.ruleId, m.messageId),
    start: m.range[0] + shift,
    end: m.range[1] + shift,
  }));
}

const expectSameFindings = async (text: string) =>
  expect(await secretlintFindings(text)).toEqual(await wholeText(text));

const repeat = (s: string, n: number) => s.repeat(Math.ceil(n / s.length)).slice(0, n);
const b64 = 'MIIEowIBAAKCAQEA7b9Zq3xK+/2mN0pQ8rT1uV4wX6yZ9aB3cD5eF7gH1iJ2kL4mN6oP8qR0sT2uV4wX6yZ8=';
const pemBody = (n: number) => `MI${repeat(b64.replace(/=/g, ''), n - 2)}`;
const opsPayload = () => {
  let json = `{"email":"svc@1passwordserviceaccounts.lcl","secretKey":"A3-C4ZJMN-PQTZTL-HGL84-G64M7-KVZRN","srpX":"870d67a9e626"}`;
  while (json.length % 3 !== 1) json = json.replace('{', '{ ');
  return Buffer.from(json).toString('base64');
};

/** One match of each rule of the preset, as the rules' sources describe them. */
const TOKENS = [
  `npm_${repeat('aB3dE5fG7h', 36)}`,
  `ghp_${repeat('0123456789abcdefghijABCDEFGHIJ', 36)}`,
  `github_pat_${repeat('11ABCDEFG0abcdefghij_', 82)}`,
  `shpat_${repeat('a1B2c3D4e5', 32)}`,
  `glpat-${repeat('x1Y2z3W4v5', 20)}`,
  `glc_${repeat('eyJvIjoiMTIzNDU2Nzg5MCIsIm4iOiJ0b2tlbi', 40)}`,
  `glsa_${repeat('Ab1Cd2Ef3Gh4', 32)}_0a1b2c3d`,
  `sk-${repeat('aB3dE5fG7hJ9kL1mN3pQ', 20)}T3BlbkFJ${repeat('zX8wV6uT4sR2qP0oN8mL', 20)}`,
  `sk-proj-${repeat('aB3dE5fG7h-J9kL1_mN3p', 74)}T3BlbkFJ${repeat('zX8wV6uT4s_R2qP0-oN8m', 74)}`,
  `sk-ant-api03-${repeat('Ab3De5Gh7Jk9_Mn1-Pq3St5', 93)}AA`,
  `gsk_${repeat('Ab3De5Gh7Jk9Mn1Pq3St5', 52)}`,
  `hf_${repeat('AbCdEfGhIjKlMnOpQrStUv', 34)}`,
  `lin_api_${repeat('a1B2c3D4e5', 40)}`,
  `ntn_12345678901${repeat('Ab3De5Gh7Jk9Mn1', 35)}`,
  `ops_${opsPayload()}`,
  `hvs.${repeat('CAESIJ-aB3dE5fG7h_J9kL1mN3pQ', 95)}`,
  `hvb.${repeat('AAAAAQ-aB3dE5fG7h_J9kL1mN3pQ', 150)}`,
  `vcp_${repeat('Ab3De5Gh7Jk9Mn1Pq3', 24)}`,
  `dapi${repeat('0123456789abcdef', 32)}-2`,
  `dckr_pat_${repeat('Ab3-De5_Gh7Jk9', 27)}`,
  `figd_${repeat('Ab3De5-Gh7_Jk9', 44)}`,
  `SG.${repeat('Ab3De5Gh7Jk9Mn1Pq3St5', 22)}.${repeat('Zy8Xw6Vu4Ts2Rq0Po8Nm6Lk4Ji', 43)}`,
  `xoxb-1234567890-1234567890123-${repeat('aB3d', 24)}`,
  'https://hooks.slack.com/services/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',
  'https://deploy:Zq8xW2pLm4@internal.corp.net/path',
  'postgres://admin:s3cr3tPassw0rd@db.internal:5432/app',
  'mongodb+srv://svc:pw9x8y7Q@cluster0.abcde.mongodb.net/db?retryWrites=true',
  'jdbc:mysql://app:hunter2x9@10.0.0.1:3306/db',
  `AWS_SECRET_ACCESS_KEY = "${repeat('wJalrXUtnFEMI/K7MDENG/bPxRfiCYzz9+', 40)}"`,
  `-----BEGIN RSA PRIVATE KEY-----\n${pemBody(400)}\n-----END RSA PRIVATE KEY-----`,
];

const SPACES = [' ', '\t', '\n', '\r\n', '\u00a0', '\u2028', '\u3000', '\ufeff', '\n\n  \n'];
const GLUE = ['', 'x', 'é', '𝒜', '"', '(', '=', ':', '\\n', '_', '-', '/', '.'];

describe('secretlint windows', () => {
  it('treat as a space exactly what JavaScript regexes call one', () => {
    for (let c = 0; c < 0x10000; c++) expect(isSpace(c), `U+${c.toString(16)}`).toBe(/\s/.test(String.fromCharCode(c)));
  });

  it('are derived from this version of the preset and these rules (re-derive them if this changes)', () => {
    expect(presetPackage.version).toBe('12.0.0');
    expect(rules.map((r) => r.meta.id.replace('@secretlint/secretlint-rule-', ''))).toEqual([
      'aws',
      'gcp',
      'privatekey',
      'npm',
      'basicauth',
      'slack',
      'sendgrid',
      'shopify',
      'github',
      'gitlab',
      'grafana',
      'openai',
      'anthropic',
      'groq',
      'huggingface',
      'linear',
      'notion',
      '1password',
      'database-connection-string',
      'hashicorp-vault',
      'vercel',
      'databricks',
      'docker',
      'figma',
      'filter-comments',
    ]);
  });

  it('give the findings of the whole text on every document of both bench throughput texts', async () => {
    const transcript = transcriptDocs();
    for (const doc of [...throughputDocs(), ...transcript]) await expectSameFindings(doc);
    // and leave out most of ordinary text
    const windows = presetWindows(transcript[0]);
    let covered = 0;
    for (let i = 0; i < windows.length; i += 2) covered += windows[i + 1] - windows[i];
    expect(covered / transcript[0].length).toBeLessThan(0.05);
  });

  it('give the findings of the whole text for each rule, at a window edge, glued to other text or not', async () => {
    let found = 0;
    for (const token of TOKENS) {
      const alone = await secretlintFindings(token);
      expect(alone.length, token).toBeGreaterThan(0);
      found += alone.length;
      for (const glue of GLUE) await expectSameFindings(`${glue}${token}${glue}`);
      for (const [i, space] of SPACES.entries()) {
        await expectSameFindings(`text${space}${GLUE[i % GLUE.length]}${token}${space}more`);
        await expectSameFindings(`${space}${token}${GLUE[(i + 5) % GLUE.length]}${space}x${space}${token}`);
      }
    }
    expect(found).toBeGreaterThanOrEqual(TOKENS.length);
  });

  it('give the findings of the whole text for AWS keys across lines, CRLF and spaces', async () => {
    const value = repeat('wJalrXUtnFEMI/K7MDENG/bPxRfiCYzz9+', 40);
    const texts: string[] = [];
    for (const key of [
      'AWS_SECRET_ACCESS_KEY',
      'aws_secret_access_key',
      'SecretAccessKey',
      '"secret_accessKey"',
      'x.SECRETACCESSKEY',
    ]) {
      for (const connector of [
        '=',
        ':',
        '=>',
        ' = ',
        ' :\n',
        '\r\n=\r\n',
        '\n\n\t\n=\n\n\n',
        '=\u2028',
        ' \u00a0=> ',
      ]) {
        for (const quote of ['', '"', "'"]) {
          for (const v of [value, value.slice(1), `${value}Q`, `${value.slice(0, 20)}\n${value.slice(20)}`]) {
            texts.push(
              `${key}${connector}${quote}${v}${quote} tail`,
              `a ${key}${connector}${quote}${v}`,
              `${key}${connector}`,
            );
          }
        }
      }
    }
    texts.push(`AWS_SECRET_ACCESS_KEY ${' '.repeat(5000)}\n=\n${' \n'.repeat(3000)}${value}`);
    texts.push(`SECRET_ACCESS_KEY= x ${value}`, `SECRET_ACCESS_KEY=SECRET_ACCESS_KEY=${value}`);
    for (const text of texts) await expectSameFindings(text);
  });

  it('give the findings of the whole text for PEM keys of any length and line ending', async () => {
    const texts: string[] = [];
    for (const kind of ['', 'RSA ', 'EC ', 'OPENSSH ']) {
      for (const n of [80, 400, 9_990, 9_998, 9_999, 10_000, 10_001, 10_002, 10_010]) {
        const body = pemBody(n);
        const lines = body.match(/.{1,64}/g)?.join('\n') ?? body;
        for (const [inner, nl] of [
          [body, '\n'],
          [lines, '\n'],
          [lines.replace(/\n/g, '\r\n'), '\r\n'],
          [lines.replace(/\n/g, '\\n'), '\\n'],
          [body, ''],
        ]) {
          texts.push(`key: -----BEGIN ${kind}PRIVATE KEY-----${nl}${inner}${nl}-----END ${kind}PRIVATE KEY----- done`);
        }
      }
      texts.push(`-----BEGIN ${kind}PRIVATE KEY-----\n${pemBody(500)}`, `x -----BEGIN ${kind}PRIVATE KEY-----`);
      texts.push(
        `-----BEGIN ${kind}PRIVATE KEY-----\n${pemBody(300)}!${pemBody(300)}\n-----END ${kind}PRIVATE KEY-----`,
      );
    }
    for (const text of texts) await expectSameFindings(text);
  });

  it('give the findings of the whole text after a byte-order mark and around secretlint-disable comments', async () => {
    for (const token of TOKENS.slice(0, 8)) {
      await expectSameFindings(`\ufeff${token}`);
      await expectSameFindings(`\ufeff ${token}`);
      await expectSameFindings(`// secretlint-disable\n${token} # secretlint-disable-line\n${token}secretlint-enable`);
    }
  });

  it('give the findings of the whole text on random mixes of tokens, literals, spaces and base64', async () => {
    const random = seededRandom(7);
    const pick = <T>(xs: readonly T[]): T => xs[random() % xs.length];
    const literals = [
      'npm_',
      'ghp_',
      'sk-',
      'sk-ant-api03-',
      '://',
      'https://',
      'SG.',
      'hvs.',
      'dapi',
      'xoxb-',
      'ops_ey',
      '@host.io',
      ':pw',
      '-----BEGIN PRIVATE KEY-----',
      '-----END PRIVATE KEY-----',
      'AWS_SECRET_ACCESS_KEY',
      '=',
      '=>',
      '"',
      'é',
      'secretlint-disable',
    ];
    for (let t = 0; t < 150; t++) {
      const parts: string[] = [];
      for (let k = 0; k < 40; k++) {
        const r = random() % 10;
        if (r < 2) parts.push(pick(TOKENS));
        else if (r < 5) parts.push(pick(literals));
        else if (r < 8) parts.push(pick(SPACES));
        else parts.push(pemBody(1 + (random() % 120)));
      }
      await expectSameFindings(parts.join(''));
    }
  });
});
