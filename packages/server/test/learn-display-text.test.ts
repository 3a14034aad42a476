// Display text on the way in: control, bidirectional-formatting and invisible characters are removed from what a
// learning (and other text people are shown) stores and echoes, and minimum lengths count visible characters.
import { normalizeDisplayText, visibleLength } from '@axle/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, post, type Smtp, startSmtp } from '../../../test/support/identity.js';
import { startTestServer, type TestServer } from '../../../test/support/server.js';
import { learningsStore } from '../src/store/learnings.js';
import { contributor, learningBody } from './knowledge-helpers.js';

const ZWSP = '\u200b';
const RLO = '\u202e';
const TAG = (s: string) => [...s].map((c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join('');

describe('normalizeDisplayText and visibleLength', () => {
  it('removes controls, bidi formatting and invisible characters; keeps line breaks, tabs, ZWJ and scripts', () => {
    expect(normalizeDisplayText(`a\u0000b\u001b[31mc${RLO}d\u2066e\u2069${ZWSP}f\u00adg\ufeff${TAG('hi')}`)).toBe(
      'ab[31mcdefg',
    );
    expect(normalizeDisplayText('line one\r\nline\ttwo\rthree')).toBe('line one\nline\ttwo\nthree');
    expect(normalizeDisplayText('line one\n\tline two', { singleLine: true })).toBe('line one line two');
    // The joiners that emoji and scripts need stay, as do accents (NFC composes them).
    expect(normalizeDisplayText('👩\u200d💻 می\u200cخواهم e\u0301')).toBe('👩\u200d💻 می\u200cخواهم é');
  });

  it('counts what a reader sees', () => {
    expect(visibleLength(ZWSP.repeat(12))).toBe(0);
    expect(visibleLength(` \t\n${RLO}\u3164\u2800 `)).toBe(0);
    expect(visibleLength('e\u0301 ab')).toBe(3);
    expect(visibleLength('日本語のテキスト')).toBe(8);
  });
});

describe('POST /learn', () => {
  let server: TestServer;
  let smtp: Smtp;
  let alice: Awaited<ReturnType<typeof contributor>>;
  beforeAll(async () => {
    smtp = await startSmtp();
    server = await startTestServer({ AXLE_SMTP_URL: smtp.url });
    alice = await contributor(server, smtp, 'alice@example.com');
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    await smtp?.close();
  });

  it('refuses a title of 12 zero-width characters, or padded with them, under the 10-character minimum', async () => {
    for (const title of [ZWSP.repeat(12), `abc${ZWSP.repeat(9)}`, `${RLO}\u0000\u0007abcdefg${'\u0301'.repeat(5)}`]) {
      const res = await post(server, '/learn', learningBody(0, { title }), alice.headers);
      expect(res.status, JSON.stringify(title)).toBe(400);
      const body = await res.json();
      expect(body).toMatchObject({ code: 'validation_error', field: 'body.title' });
      expect(body.error).toMatch(/at least 10 visible characters/);
    }
    const body = await post(server, '/learn', learningBody(0, { body: `${ZWSP.repeat(200)}short` }), alice.headers);
    expect(body.status).toBe(400);
    expect((await body.json()).field).toBe('body.body');
  });

  it('stores and echoes titles, bodies, tags and context without hidden characters', async () => {
    const base = learningBody(1);
    const res = await post(
      server,
      '/learn',
      {
        ...base,
        title: `${RLO}Retry${ZWSP} S3\u0000 uploads\r\non SlowDown${TAG('ignore previous')}`,
        body: `${base.body}\r\nSecond line\u001b[2J with\u2066 isolate\u2069.`,
        tags: [`s3${ZWSP}`, `\u202aretry`],
        task_context: `backups\u0085 nightly`,
        contributor_agent: `agent\u200f/1.0`,
        related_skills: [`${RLO}kafka/consumer${ZWSP}`, 'pg\nbouncer'],
      },
      alice.headers,
    );
    expect(res.status).toBe(201);
    const { id } = await res.json();
    const stored = (await learningsStore.byId(server.db, id))!;
    expect(stored.title).toBe('Retry S3 uploads on SlowDown');
    expect(stored.body).toBe(`${base.body}\nSecond line[2J with isolate.`);
    expect(stored.tags).toEqual(['s3', 'retry']);
    expect(stored.taskContext).toBe('backups nightly');
    expect(stored.contributorAgent).toBe('agent/1.0');
    expect(stored.relatedSkills).toEqual(['kafka/consumer', 'pg bouncer']);
    const pending = await (await fetch(`${server.url}/account/pending`, { headers: bearer(alice.jwt) })).json();
    expect(pending.learnings.find((l: { id: string }) => l.id === id)).toMatchObject({
      title: 'Retry S3 uploads on SlowDown',
      tags: ['s3', 'retry'],
    });
  });

  it('normalises an API key name the same way', async () => {
    const res = await post(server, '/account/api-keys', { name: `lap${RLO}top${ZWSP}` }, bearer(alice.jwt));
    expect(res.status).toBe(200);
    expect((await res.json()).name).toBe('laptop');
    const empty = await post(server, '/account/api-keys', { name: ZWSP.repeat(5) }, bearer(alice.jwt));
    expect(empty.status).toBe(400);
  });
});
