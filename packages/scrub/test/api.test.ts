import { performance } from 'node:perf_hooks';
import { lintSource } from '@secretlint/core';
import { creator as recommendPreset } from '@secretlint/secretlint-rule-preset-recommend';
import { describe, expect, it } from 'vitest';
import { detect, detectAsync, mergeFindings, redact, SCRUBBER_VERSION, scrub, scrubAsync } from '../src/index.js';
import { secretlintFindings, typeOf } from '../src/secretlint.js';
import { decodeJsonEscapes, decodedViews } from '../src/unescape.js';

describe('redact', () => {
  it('merges overlapping findings under the specific type', () => {
    expect(
      mergeFindings([
        { type: 'secret_assignment', start: 5, end: 30 },
        { type: 'ethereum_private_key', start: 5, end: 30 },
        { type: 'email', start: 40, end: 50 },
        { type: 'phone_number', start: 45, end: 48 },
      ]),
    ).toEqual([
      { type: 'ethereum_private_key', start: 5, end: 30 },
      { type: 'email', start: 40, end: 50 },
    ]);
  });

  it('writes typed placeholders and the client_scrub_report', () => {
    const r = redact('a secret b mail c', [
      { type: 'email', start: 11, end: 15 },
      { type: 'github_token', start: 2, end: 8 },
    ]);
    expect(r.text).toBe('a [REDACTED:github_token] b [REDACTED:email] c');
    expect(r.report).toEqual({
      scrubber_version: SCRUBBER_VERSION,
      patterns_matched: ['email', 'github_token'],
      clean: false,
    });
  });

  it('writes the placeholders a caller chooses, numbering values it has seen, with the same report', () => {
    const text = 'ask ana@example.org, then bo@example.org, then ana@example.org again';
    const numbers = new Map<string, number>();
    const numbered = redact(text, detect(text), {
      placeholder: (f, value) => {
        if (!numbers.has(value)) numbers.set(value, numbers.size + 1);
        return `[${f.type.toUpperCase()}_${numbers.get(value)}]`;
      },
    });
    expect(numbered.text).toBe('ask [EMAIL_1], then [EMAIL_2], then [EMAIL_1] again');
    expect(numbered.report).toEqual(scrub(text).report);
  });

  it('redacts what detect and detectAsync find, as scrub and scrubAsync do', async () => {
    const text =
      'token ghp_0123456789abcdefghijABCDEFGHIJ012345 npm_aB3dE5fG7haB3dE5fG7haB3dE5fG7haB3dE5 ana@example.org';
    expect(redact(text, detect(text))).toEqual(scrub(text));
    expect(redact(text, await detectAsync(text))).toEqual(await scrubAsync(text));
  });

  it('reports clean text as clean and leaves it unchanged', () => {
    const text = 'npm test passed in 3.2s';
    expect(scrub(text)).toEqual({
      text,
      report: { scrubber_version: SCRUBBER_VERSION, patterns_matched: [], clean: true },
      findings: [],
    });
  });
});

describe('JSON-escape views', () => {
  it('maps decoded offsets back to the original', () => {
    const text = String.raw`a\"b\u0041c\\n`;
    const view = decodeJsonEscapes(text);
    expect(view?.text).toBe('a"bAc\\n');
    expect([0, 1, 2, 3, 4, 5, 6, 7].map((i) => view?.toOriginal(i))).toEqual([0, 1, 3, 4, 10, 11, 13, 14]);
    expect(decodeJsonEscapes('no escapes')).toBeUndefined();
  });

  it('maps offsets after many escapes', () => {
    const text = `${'ab\\n'.repeat(1000)}\\u00e9z`;
    const view = decodeJsonEscapes(text);
    expect(view?.text).toBe(`${'ab\n'.repeat(1000)}\u00e9z`);
    for (const i of [0, 2, 3, 2999, 3000, 3001, 3002])
      expect(view?.toOriginal(i)).toBe(i + Math.floor(i / 3) + (i > 3000 ? 5 : 0));
  });

  it('composes two levels', () => {
    const twice = JSON.stringify(JSON.stringify(JSON.stringify({ k: 'v' })));
    const views = decodedViews(twice);
    expect(views.map((v) => v.text)).toEqual(['""{\\"k\\":\\"v\\"}""', '""{"k":"v"}""']);
    expect(twice[views[1].toOriginal(4)]).toBe('k');
    expect(views[1].toOriginal(views[1].text.length)).toBe(twice.length);
  });
});

describe('scrubAsync', () => {
  it('adds secretlint findings to the project rules', async () => {
    // A Linear key: the secretlint preset knows it, the project's own rules do not.
    const key = `lin_api_${'a1B2c3D4e5'.repeat(4)}`;
    const own = scrub(`LINEAR=${key}`);
    const both = await scrubAsync(`LINEAR=${key}`);
    expect(both.text).not.toContain(key);
    expect(both.report.patterns_matched.length).toBeGreaterThan(0);
    expect(own.findings.length + both.findings.length).toBeGreaterThan(0);
  });

  it('drops preset findings that are placeholders', async () => {
    expect((await scrubAsync('GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx')).report.clean).toBe(true);
  });

  it('is deterministic', async () => {
    const text = 'mail a@b.io, token ghp_0123456789abcdefghijABCDEFGHIJ012345, ip 10.2.3.4';
    expect(await scrubAsync(text)).toEqual(await scrubAsync(text));
  });

  it('leaves no secretlint performance marks behind, also under concurrent calls', async () => {
    const text = 'token ghp_0123456789abcdefghijABCDEFGHIJ012345';
    await Promise.all(Array.from({ length: 20 }, () => scrubAsync(text)));
    for (let i = 0; i < 20; i++) await scrubAsync(text);
    const left = performance.getEntriesByType('mark').filter((e) => /@core>|secretlint/.test(e.name));
    expect(left).toEqual([]);
  });

  it('finds what lintSource with the plain preset finds, and is not switched off by secretlint-disable comments', async () => {
    const text = [
      `LINEAR=lin_api_${'a1B2c3D4e5'.repeat(4)}`,
      'gh ghp_0123456789abcdefghijABCDEFGHIJ012345 and AKIAIOSFODNN7EXAMPLA',
      'db postgres://admin:s3cr3tPassw0rd@db.internal:5432/app',
      `npm_${'Ab3dE'.repeat(7)}9 xoxb-1234567890-1234567890123-${'aB3d'.repeat(6)}`,
    ].join('\n');
    const plain = async (content: string) =>
      (
        await lintSource({
          source: { filePath: '/transcript.txt', content, contentType: 'text' },
          options: {
            config: { rules: [{ id: '@secretlint/secretlint-rule-preset-recommend', rule: recommendPreset }] },
            noPhysicFilePath: true,
          },
        })
      ).messages.map((m) => ({ type: typeOf(m.ruleId, m.messageId), start: m.range[0], end: m.range[1] }));
    const ours = await secretlintFindings(text);
    expect(ours.length).toBeGreaterThanOrEqual(4);
    expect(ours).toEqual(await plain(text));
    // A file the agent read silences the plain preset with comments, but not the scrubber.
    for (const wrapped of [
      `// secretlint-disable\n${text}\n// secretlint-enable`,
      text
        .split('\n')
        .map((line) => `${line} // secretlint-disable-line`)
        .join('\n'),
      text
        .split('\n')
        .map((line) => `# secretlint-disable-next-line\n${line}`)
        .join('\n'),
    ]) {
      expect((await plain(wrapped)).length).toBeLessThan(ours.length);
      expect(await secretlintFindings(wrapped)).toHaveLength(ours.length);
    }
  });

  it('reports offsets in the text given, also after a byte-order mark', async () => {
    const text = 'gh ghp_0123456789abcdefghijABCDEFGHIJ012345';
    const [finding] = await secretlintFindings(`\ufeff${text}`);
    expect(`\ufeff${text}`.slice(finding.start, finding.end)).toBe('ghp_0123456789abcdefghijABCDEFGHIJ012345');
  });

  it('names secretlint message ids in snake case', () => {
    expect(typeOf('@secretlint/secretlint-rule-aws', 'AWSSecretAccessKey')).toBe('aws_secret_access_key');
    expect(typeOf('@secretlint/secretlint-rule-github', 'GITHUB_TOKEN')).toBe('github_token');
    expect(typeOf('@secretlint/secretlint-rule-npm', '')).toBe('npm');
  });
});
