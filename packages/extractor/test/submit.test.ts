import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { extractFile } from '../src/extract.js';
import { HeuristicModel } from '../src/model/heuristic.js';
import { OpenAIChatModel } from '../src/model/openai.js';
import { runPipeline } from '../src/pipeline/run.js';
import { readTranscriptFile } from '../src/readers/file.js';
import { readPlainText } from '../src/readers/plain.js';
import { learnRequestBody, Submitter } from '../src/submit/client.js';
import { DraftQueue } from '../src/submit/queue.js';
import type { LearningDraft } from '../src/types.js';
import { startMailingServer } from '../../../test/support/identity.js';
import { contributor } from '../../server/test/knowledge-helpers.js';
import { completion, json, startServer, type TestServer } from './helpers.js';

const draft = (n: number): LearningDraft => ({
  title: `Draft number ${n} about a real failure`,
  body: `Problem: step ${n} failed with ERR_EXAMPLE_${n}. Fixed by running \`tool --fix-${n}\` because the cache was stale.`,
  category: 'code-execution',
  tags: ['node'],
  task_context: 'testing the submitter',
  outcome: 'success',
  quality_self_assessment: { specificity: 4, actionability: 4, novelty: 3, completeness: 4 },
});

let dir: string;
let server: TestServer | undefined;
let submitters: Submitter[] = [];
const sleeps: number[] = [];
const fakeSleep = async (ms: number) => {
  sleeps.push(ms);
};
const clock = () => Date.UTC(2026, 10, 23, 4, 0, 0);

function submitter(queue: DraftQueue, url: string, extra: Partial<ConstructorParameters<typeof Submitter>[1]> = {}) {
  const s = new Submitter(queue, {
    server: url,
    apiKey: 'axl_testkey',
    sleep: fakeSleep,
    clock,
    baseDelayMs: 100,
    ...extra,
  });
  submitters.push(s);
  return s;
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'axle-submit-'));
  sleeps.length = 0;
});
afterEach(async () => {
  await Promise.all(submitters.map((s) => s.close()));
  submitters = [];
  await server?.close();
  server = undefined;
  await rm(dir, { recursive: true, force: true });
});

describe('learnRequestBody', () => {
  it('is the POST /learn shape with the extraction channel, agent stamp and source tag', () => {
    expect(learnRequestBody(draft(1), 'claude-code')).toEqual({
      ...draft(1),
      tags: ['node', 'source:claude-code'],
      submission_channel: 'extraction',
      contributor_agent: 'svc-autonomous-extractor/0.1.0',
    });
  });
});

describe('DraftQueue.enqueueNew', () => {
  it('drops drafts that near-duplicate one already queued, sent or rejected in the same category', async () => {
    const queue = new DraftQueue(dir);
    const now = new Date(clock());
    expect((await queue.enqueueNew([draft(1), draft(2)], 'claude-code', now)).duplicates).toBe(0);
    const first = (await queue.list('pending'))[0];
    if (first) await queue.settle(first, 'done');
    const again = await queue.enqueueNew(
      [draft(1), { ...draft(2), body: `${draft(2).body} ` }, { ...draft(1), category: 'monitoring' }, draft(3)],
      'claude-code',
      now,
    );
    expect(again.duplicates).toBe(2);
    expect(again.queued.map((q) => [q.draft.title, q.draft.category])).toEqual([
      [draft(1).title, 'monitoring'],
      [draft(3).title, 'code-execution'],
    ]);
  });

  it('queues different drafts written in another script, and drops the same one sent again', async () => {
    const queue = new DraftQueue(dir);
    const now = new Date(clock());
    const inJapanese = (title: string, body: string): LearningDraft => ({ ...draft(1), title, body });
    const a = inJapanese(
      '接続プールの枯渇によるタイムアウト',
      'データベースの接続がタイムアウトした場合は、接続プールの上限を確認してから再試行してください。',
    );
    const b = inJapanese(
      '画像生成の失敗とプロンプトの長さ',
      '画像の生成に失敗したときは、プロンプトの長さを短くしてもう一度送信すると解決することが多い。',
    );
    expect(await queue.enqueueNew([a, b], 'claude-code', now)).toMatchObject({ duplicates: 0 });
    expect(await queue.list('pending')).toHaveLength(2);
    expect(await queue.enqueueNew([b], 'claude-code', now)).toMatchObject({ queued: [], duplicates: 1 });
  });
});

describe('DraftQueue on a disk that refuses the write', () => {
  // Found by queueing with HOME on a full tmpfs: each failed write left a partial '.<id>.<hex>.tmp' in pending/,
  // which nothing reads or removes, so every retry left one more.
  it('leaves no temporary file behind and queues nothing', async () => {
    const queueJs = fileURLToPath(new URL('../dist/submit/queue.js', import.meta.url));
    const big = JSON.stringify({ ...draft(1), body: 'x'.repeat(4096) });
    const script = `const { DraftQueue } = await import(${JSON.stringify(queueJs)});
await new DraftQueue(${JSON.stringify(dir)}).enqueue(${big}, 'claude-code', new Date())
  .then(() => process.exit(0), (err) => { console.error(err.code); process.exit(3); });`;
    // A 1 KiB file size limit (bash counts `ulimit -f` in KiB) fails the write as a full disk does.
    const child = spawn(
      'bash',
      ['-c', 'ulimit -f 1; exec "$0" "$@"', process.execPath, '--input-type=module', '-e', script],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    expect(await new Promise((resolve) => child.once('close', resolve)), stderr).toBe(3);
    expect(stderr.trim()).toBe('EFBIG');
    expect(await readdir(join(dir, 'pending'))).toEqual([]);
  });
});

describe('Submitter', () => {
  it('sends with X-API-Key and moves answered drafts to done or rejected with the reason', async () => {
    const answers = [
      [
        201,
        {
          id: 'lrn_abc',
          message: 'ok',
          status: 'pending_review',
          review_reason: ['standing_consent_off'],
          contributor_wallet: null,
          timestamp: 't',
        },
      ],
      [
        409,
        { error: 'Near-duplicate learning detected', message: 'similar', existing_id: 'lrn_old', similarity: 0.91 },
      ],
      [400, { error: 'Category out of scope', code: 'CATEGORY_OUT_OF_SCOPE', allowed_categories: [] }],
    ] as const;
    let n = 0;
    server = await startServer((_req, res) => {
      const [status, body] = answers[n++] ?? [500, {}];
      json(res, status, body);
    });
    const queue = new DraftQueue(dir);
    const report = await submitter(queue, server.url).submit([draft(1), draft(2), draft(3)], 'claude-code');
    expect(report.sent).toEqual([{ id: expect.any(String), learning_id: 'lrn_abc', status: 'pending_review' }]);
    expect(report.rejected.map((r) => [r.status, r.reason])).toEqual([
      [409, 'HTTP 409: Near-duplicate learning detected - similar'],
      [400, 'HTTP 400: CATEGORY_OUT_OF_SCOPE - Category out of scope'],
    ]);
    expect(report.pending).toEqual([]);
    expect(server.requests).toHaveLength(3); // no retries for 409/400
    for (const r of server.requests) {
      expect(r.url).toBe('/learn');
      expect(r.headers['x-api-key']).toBe('axl_testkey');
      expect(JSON.parse(r.body)).toMatchObject({
        submission_channel: 'extraction',
        contributor_agent: 'svc-autonomous-extractor/0.1.0',
      });
    }
    expect(await queue.list('pending')).toEqual([]);
    const done = await queue.list('done');
    expect(done[0]?.outcome).toEqual({
      status: 201,
      learning_id: 'lrn_abc',
      learning_status: 'pending_review',
      review_reason: ['standing_consent_off'],
    });
    expect((await queue.list('rejected')).map((i) => i.outcome?.status)).toEqual([409, 400]);
  });

  // Found by reading: POST /learn ignored the Idempotency-Key the submitter sends, so the retry after an answer lost
  // on the way got 409 for the learning the first request had stored, and the draft went to rejected/.
  it('a retry after the answer was lost on the way is the stored learning: the draft is done, stored once', async () => {
    const { smtp, server: axle, stop } = await startMailingServer();
    try {
      const { key } = await contributor(axle, smtp, 'lost-answer@example.com');
      let learns = 0;
      // Forwards to the server; the first answer of POST /learn never comes back (the connection is cut instead).
      const relay = await startServer(async (req, res) => {
        const headers = Object.fromEntries(
          Object.entries(req.headers).filter(([k]) => !['host', 'connection', 'content-length'].includes(k)),
        ) as Record<string, string>;
        const answer = await fetch(`${axle.url}${req.url}`, {
          method: req.method,
          headers,
          body: req.body === '' ? undefined : req.body,
        });
        const text = await answer.text();
        if (req.url === '/learn' && learns++ === 0) return void res.socket?.destroy();
        res.writeHead(answer.status, { 'content-type': 'application/json' }).end(text);
      });
      try {
        const queue = new DraftQueue(dir);
        const s = new Submitter(queue, { server: relay.url, apiKey: key, sleep: fakeSleep, clock, baseDelayMs: 100 });
        submitters.push(s);
        const report = await s.submit([draft(7)], 'claude-code');
        expect(learns).toBe(2);
        expect(report.rejected).toEqual([]);
        expect(report.sent).toEqual([
          { id: expect.any(String), learning_id: expect.stringMatching(/^lrn_/), status: expect.any(String) },
        ]);
        expect((await queue.list('done')).map((i) => i.outcome?.status)).toEqual([201]);
        const stored = await axle.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM learnings WHERE title = ?', [
          draft(7).title,
        ]);
        expect(stored!.n).toBe(1);
      } finally {
        await relay.close();
      }
    } finally {
      await stop();
    }
  });

  it('keeps drafts queued while the server answers 503, with exponential backoff, and sends them later', async () => {
    let up = false;
    server = await startServer((_req, res) =>
      up ? json(res, 201, { id: 'lrn_later', status: 'approved' }) : json(res, 503, { error: 'Service unavailable' }),
    );
    const queue = new DraftQueue(dir);
    const s = submitter(queue, server.url, { maxAttempts: 4 });
    const first = await s.submit([draft(1), draft(2)], 'openclaw');
    expect(first.sent).toEqual([]);
    expect(first.stopped).toBe('server unavailable (HTTP 503: Service unavailable)');
    expect(first.pending.map((p) => p.attempts)).toEqual([4, 0]);
    expect(sleeps).toEqual([100, 200, 400]);
    expect(server.requests).toHaveLength(4); // stops after the first item: the second is not hammered
    const pending = await queue.list('pending');
    expect(pending).toHaveLength(2);
    expect(pending[0]?.last_error).toBe('HTTP 503: Service unavailable');

    up = true;
    const second = await s.flush();
    expect(second.sent.map((x) => x.learning_id)).toEqual(['lrn_later', 'lrn_later']);
    expect(await queue.list('pending')).toEqual([]);
    expect(await queue.list('done')).toHaveLength(2);
  });

  it('stops reading an answer far larger than any Axle answer and keeps the draft queued', async () => {
    server = await startServer((_req, res) => {
      res.writeHead(201, { 'content-type': 'application/json' });
      const mib = Buffer.alloc(1024 * 1024, 0x61);
      let sent = 0;
      const pump = () => {
        while (sent < 64) {
          sent++;
          if (!res.write(mib)) return;
        }
        res.end();
      };
      res.on('drain', pump);
      res.on('error', () => undefined);
      res.write('{"id": "');
      pump();
    });
    const queue = new DraftQueue(dir);
    const r = await submitter(queue, server.url, { maxAttempts: 1 }).submit([draft(1)], 'claude-code');
    expect(r.sent).toEqual([]);
    expect(r.pending).toEqual([{ id: expect.any(String), attempts: 1, last_error: 'answer larger than 1 MiB' }]);
    expect(await queue.list('pending')).toHaveLength(1);
  });

  it('scrubs a queued draft again before sending it: one edited after extraction to hold a secret is not sent', async () => {
    server = await startServer((_req, res) => json(res, 201, { id: 'lrn_ok', status: 'pending_review' }));
    const queue = new DraftQueue(dir);
    const [edited] = (await queue.enqueueNew([draft(1), draft(2)], 'claude-code', new Date(clock()))).queued;
    // Someone improves the waiting draft by hand and pastes the command with its credentials.
    const file = join(dir, 'pending', `${edited!.id}.json`);
    const item = JSON.parse(await readFile(file, 'utf8'));
    item.draft.body += ' Then: export AWS_ACCESS_KEY_ID=AKIAQYLPMN5HHHFPZAM2 and rerun the deploy.';
    await writeFile(file, JSON.stringify(item));

    const r = await submitter(queue, server.url).flush();
    expect(server.requests.map((q) => JSON.parse(q.body).title)).toEqual([draft(2).title]);
    expect(server.requests.map((q) => q.body).join('')).not.toContain('AKIAQYLPMN5HHHFPZAM2');
    expect(r.rejected).toEqual([
      { id: edited!.id, status: 0, reason: expect.stringContaining('scrubber matched aws_access_key') },
    ]);
    expect((await queue.list('rejected')).map((i) => i.id)).toEqual([edited!.id]);
  });

  it('sends a queued draft edited by hand as the queue would store it: person names redacted', async () => {
    server = await startServer((_req, res) => json(res, 201, { id: 'lrn_ok', status: 'pending_review' }));
    const queue = new DraftQueue(dir);
    const [edited] = (await queue.enqueueNew([draft(1)], 'claude-code', new Date(clock()))).queued;
    const file = join(dir, 'pending', `${edited!.id}.json`);
    const item = JSON.parse(await readFile(file, 'utf8'));
    item.draft.body += ' Then ask Priya Raman to rotate the deploy key.';
    await writeFile(file, JSON.stringify(item));

    await submitter(queue, server.url).flush();
    expect(server.requests).toHaveLength(1);
    const sent = JSON.parse(server.requests[0]!.body);
    expect(sent.body).not.toContain('Priya');
    expect(sent.body).toContain('Then ask [PERSON_1] to rotate the deploy key.');
  });

  it('checks every text field it sends, the source tag included, before sending a queued draft', async () => {
    server = await startServer((_req, res) => json(res, 201, { id: 'lrn_ok', status: 'pending_review' }));
    const queue = new DraftQueue(dir);
    const [edited] = (await queue.enqueueNew([draft(1)], 'claude-code', new Date(clock()))).queued;
    const file = join(dir, 'pending', `${edited!.id}.json`);
    const item = JSON.parse(await readFile(file, 'utf8'));
    item.source = 'claude-code AKIAQYLPMN5HHHFPZAM2';
    await writeFile(file, JSON.stringify(item));

    const r = await submitter(queue, server.url).flush();
    expect(server.requests.map((q) => q.body).join('')).not.toContain('AKIAQYLPMN5HHHFPZAM2');
    expect(r.rejected.map((x) => x.id)).toEqual([edited!.id]);
  });

  it('sends only the draft fields of the request shape from a queued file: nothing else it may hold', async () => {
    server = await startServer((_req, res) => json(res, 201, { id: 'lrn_ok', status: 'pending_review' }));
    const queue = new DraftQueue(dir);
    const [edited] = (await queue.enqueueNew([draft(1)], 'claude-code', new Date(clock()))).queued;
    const file = join(dir, 'pending', `${edited!.id}.json`);
    const item = JSON.parse(await readFile(file, 'utf8'));
    item.draft.quality_self_assessment = { specificity: 4, notes: 'AKIAQYLPMN5HHHFPZAM2' };
    await writeFile(file, JSON.stringify(item));

    await submitter(queue, server.url).flush();
    expect(server.requests.map((q) => q.body).join('')).not.toContain('AKIAQYLPMN5HHHFPZAM2');
  });

  it('honours Retry-After and leaves drafts queued when the server is unreachable', async () => {
    server = await startServer((_req, res) => {
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '7' });
      res.end(JSON.stringify({ error: 'Too many requests' }));
    });
    const queue = new DraftQueue(dir);
    const r = await submitter(queue, server.url, { maxAttempts: 2 }).submit([draft(1)], 'claude-code');
    expect(sleeps).toEqual([7000]);
    expect(r.pending).toHaveLength(1);

    const url = server.url;
    await server.close();
    server = undefined;
    sleeps.length = 0;
    const down = await submitter(queue, url, { maxAttempts: 3 }).flush();
    expect(down.stopped).toMatch(/^server unavailable \(network: /);
    expect(sleeps).toEqual([100, 200]);
    expect(await queue.list('pending')).toHaveLength(1);
  });

  it('stops on 401 without losing the draft', async () => {
    server = await startServer((_req, res) => json(res, 401, { error: 'Invalid API key' }));
    const queue = new DraftQueue(dir);
    const r = await submitter(queue, server.url).submit([draft(1)], 'claude-code');
    expect(r.stopped).toBe('credentials refused (HTTP 401: Invalid API key)');
    expect(server.requests).toHaveLength(1);
    expect(await queue.list('pending')).toHaveLength(1);
  });

  // Found by the runner against a server address that answers but has no POST /learn (a web app on the port, a proxy
  // without the route): every draft was moved to rejected/ for good as 'HTTP 404', never sent once the address was
  // right. POST /learn answers 404 only for `replaces`, which drafts never carry.
  it('stops without losing the drafts where POST /learn does not exist (404, 405)', async () => {
    for (const status of [404, 405]) {
      server = await startServer((_req, res) => json(res, status, { error: 'Not found' }));
      const queue = new DraftQueue(await mkdtemp(join(tmpdir(), 'axle-queue-')));
      const r = await submitter(queue, server.url).submit([draft(1), draft(2)], 'claude-code');
      expect(r.stopped).toBe(`no POST /learn at ${server.url} (HTTP ${status}: Not found)`);
      expect(r.rejected).toEqual([]);
      expect(server.requests).toHaveLength(1);
      expect(await queue.list('pending')).toHaveLength(2);
      await rm(queue.dir, { recursive: true, force: true });
      await server.close();
      server = undefined;
    }
  });
});

// Found by attacking the submitter: any 2xx moved the draft to done/, so an address answering 200 to every POST (a
// captive portal, a web app or proxy on the port, a server URL mistyped onto another site) "took" every queued draft:
// done, never stored anywhere, never sent again.
describe('Submitter against an address that answers 2xx but is not POST /learn', () => {
  it('keeps the drafts queued and stops when the answer names no stored learning', async () => {
    const answers: Array<[number, string, string]> = [
      [200, 'text/html', '<html><body>Welcome to the hotel network</body></html>'],
      [200, 'application/json', '{"ok":true}'],
      [204, 'application/json', ''],
      [201, 'application/json', '{"id":42,"status":"approved"}'],
    ];
    for (const [status, type, body] of answers) {
      server = await startServer((_req, res) => {
        res.writeHead(status, { 'content-type': type });
        res.end(body);
      });
      const queue = new DraftQueue(await mkdtemp(join(tmpdir(), 'axle-queue-')));
      const r = await submitter(queue, server.url).submit([draft(1), draft(2)], 'claude-code');
      expect(r.sent).toEqual([]);
      expect(r.stopped).toBe(`no POST /learn at ${server.url} (HTTP ${status} without a learning id)`);
      expect(server.requests).toHaveLength(1);
      expect(await queue.list('done')).toEqual([]);
      expect(await queue.list('pending')).toHaveLength(2);
      await rm(queue.dir, { recursive: true, force: true });
      await server.close();
      server = undefined;
    }
  });
});

describe('full extraction: transcript -> pipeline -> submit', () => {
  it('sends nothing but draft fields: no transcript text leaves in any request', async () => {
    server = await startServer((_req, res) => json(res, 201, { id: 'lrn_x', status: 'pending_review' }));
    const file = fileURLToPath(new URL('./fixtures/claude-code-session.jsonl', import.meta.url));
    const { conversation } = await readTranscriptFile(file);
    const result = await runPipeline(conversation, { model: new HeuristicModel() });
    expect(result.learnings.length).toBeGreaterThan(0);
    const queue = new DraftQueue(dir);
    await submitter(queue, server.url).submit(result.learnings, conversation.source);

    expect(server.requests.length).toBe(result.learnings.length);
    const allowed = new Set([
      'title',
      'body',
      'category',
      'tags',
      'task_context',
      'outcome',
      'quality_self_assessment',
      'submission_channel',
      'contributor_agent',
    ]);
    // Every sentence-sized piece of the transcript that the drafts did not use.
    const draftText = result.learnings.map((d) => [d.title, d.body, d.task_context, ...d.tags].join('\n')).join('\n');
    const raw = await readFile(file, 'utf8');
    const pieces = new Set<string>();
    for (const m of conversation.messages)
      for (const p of m.text.split(/[\n.;]+/)) if (p.trim().length >= 16) pieces.add(p.trim());
    const unused = [...pieces].filter((p) => !draftText.includes(p));
    expect(unused.length).toBeGreaterThan(10);
    for (const req of server.requests) {
      const body = JSON.parse(req.body) as Record<string, unknown>;
      expect(Object.keys(body).every((k) => allowed.has(k))).toBe(true);
      const wire = `${req.url}\n${JSON.stringify(req.headers)}\n${req.body}`;
      for (const p of unused) expect(wire.includes(p), `leaked: ${p}`).toBe(false);
      // metadata from the JSONL envelope (session id, cwd, signatures) never travels either
      for (const meta of [
        '7d0e5b8c-3f2a-4e1b-9c6d-5a4b3c2d1e0f',
        '/home/dev/projects',
        'EqoBCkYIBxgCKkB',
        'msg_01ABCdefGHIjkl',
      ]) {
        expect(raw.includes(meta)).toBe(true);
        expect(wire.includes(meta)).toBe(false);
      }
    }
  });
});

describe('full extraction with a chat-completions model', () => {
  it('sends the model scrubbed chunks only and the server draft fields only', async () => {
    const email = 'jane.doe@corp-mail.com';
    const token = `ghp_${'A1b2C3d4E5f6G7h8I9j0'.repeat(2).slice(0, 36)}`;
    const transcript = [
      `User: deploy to staging fails. My GitHub token is ${token} and reach me at ${email}.`,
      'Assistant: The CI log shows "Error: HttpError: Resource not accessible by integration" from the release step.',
      'Assistant: Fixed by granting the workflow `permissions: contents: write`; the default GITHUB_TOKEN is read-only since 2023.',
    ].join('\n\n');
    const draft = {
      title: 'GitHub Actions release step fails: Resource not accessible by integration',
      body:
        'Problem: the release step failed with `HttpError: Resource not accessible by integration`. Root cause: the default ' +
        'GITHUB_TOKEN is read-only. Fixed by adding `permissions: contents: write` to the workflow job.',
      category: 'code-execution',
      tags: ['github-actions', 'ci'],
      task_context: 'Deploying to staging from a CI workflow',
      outcome: 'success',
      quality_self_assessment: { specificity: 4, actionability: 5, novelty: 4, completeness: 4 },
    };
    server = await startServer((req, res) => {
      if (req.url === '/v1/chat/completions') return json(res, 200, completion(JSON.stringify({ learnings: [draft] })));
      json(res, 201, { id: 'lrn_ci', status: 'pending_review' });
    });
    const model = new OpenAIChatModel({ baseUrl: `${server.url}/v1`, model: 'local' });
    try {
      const { conversation } = readPlainText(transcript);
      const result = await runPipeline(conversation, { model });
      expect(result.learnings).toHaveLength(1);
      await submitter(new DraftQueue(dir), server.url).submit(result.learnings, 'claude-code');
    } finally {
      await model.close();
    }
    const toModel = server.requests.filter((r) => r.url === '/v1/chat/completions');
    const toServer = server.requests.filter((r) => r.url === '/learn');
    expect(toModel).toHaveLength(1);
    expect(toServer).toHaveLength(1);
    expect(toModel[0]?.body).not.toContain(email);
    expect(toModel[0]?.body).not.toContain(token);
    expect(toModel[0]?.body).toContain('[REDACTED:');
    const sent = JSON.parse(toServer[0]?.body ?? '{}');
    expect(sent).toEqual({
      ...draft,
      tags: [...draft.tags, 'source:claude-code'],
      // the rubric's per-dimension minimum of the model's claim and what the text shows
      quality_self_assessment: expect.objectContaining({ actionability: expect.any(Number) }),
      submission_channel: 'extraction',
      contributor_agent: 'svc-autonomous-extractor/0.1.0',
    });
    for (const piece of ['deploy to staging fails', email, token, 'The CI log shows', 'since 2023']) {
      expect(toServer[0]?.body).not.toContain(piece);
    }
  });
});

describe('extractFile', () => {
  it('sends nothing when the kill switch is turned on while the transcript is being extracted', async () => {
    server = await startServer((_req, res) => json(res, 201, { id: 'lrn_hook', status: 'pending_review' }));
    const file = fileURLToPath(new URL('./fixtures/openclaw-session.jsonl', import.meta.url));
    const killSwitchPath = join(dir, 'DISABLED');
    const heuristic = new HeuristicModel();
    const r = await extractFile(file, {
      model: {
        name: 'heuristic',
        extract: async (input) => {
          await writeFile(killSwitchPath, '');
          return heuristic.extract(input);
        },
      },
      submitter: submitter(new DraftQueue(dir), server.url),
      killSwitchPath,
    });
    expect(r.disabled).toBe(true);
    expect(server.requests).toHaveLength(0);
  });

  it('reads, extracts and submits one transcript, and does nothing while the kill switch is on', async () => {
    server = await startServer((_req, res) => json(res, 201, { id: 'lrn_hook', status: 'pending_review' }));
    const file = fileURLToPath(new URL('./fixtures/openclaw-session.jsonl', import.meta.url));
    const queue = new DraftQueue(dir);
    const killSwitchPath = join(dir, 'DISABLED');
    const r = await extractFile(file, {
      model: new HeuristicModel(),
      submitter: submitter(queue, server.url),
      killSwitchPath,
    });
    expect(r.disabled).toBe(false);
    expect(r.extraction?.source).toBe('openclaw');
    expect(r.submission?.sent.map((s) => s.learning_id)).toEqual(['lrn_hook']);
    expect(JSON.parse(server.requests[0]?.body ?? '{}').tags).toContain('source:openclaw');

    await writeFile(killSwitchPath, '');
    const off = await extractFile(file, {
      model: new HeuristicModel(),
      submitter: submitter(queue, server.url),
      killSwitchPath,
    });
    expect(off).toEqual({ disabled: true });
    expect(server.requests).toHaveLength(1);
  });
});
