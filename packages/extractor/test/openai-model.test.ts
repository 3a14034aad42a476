import { afterEach, describe, expect, it } from 'vitest';
import type { Conversation } from '../src/conversation.js';
import { OpenAIChatModel, parseModelReply } from '../src/model/openai.js';
import { runPipeline } from '../src/pipeline/run.js';
import { type TestServer, completion, json, startServer } from './helpers.js';

const DRAFT = {
  title: 'pg_dump refuses to dump a newer Postgres server',
  body:
    'Problem: `pg_dump` failed with "server version: 16.4; pg_dump version: 15.8" after a host upgrade. Fixed by installing ' +
    '`postgresql-client-16` and pointing cron at its pg_dump, because pg_dump never dumps a newer major version.',
  category: 'storage-state',
  tags: ['postgres', 'backup'],
  task_context: 'Nightly database backup job on a self-hosted server',
  outcome: 'success',
  quality_self_assessment: { specificity: 5, actionability: 4, novelty: 4, completeness: 4 },
};

const conversation: Conversation = {
  source: 'claude-code',
  messages: [
    { role: 'user', kind: 'text', text: `The nightly backup broke after the upgrade. ${'context '.repeat(30)}` },
  ],
};

let server: TestServer | undefined;
const models: OpenAIChatModel[] = [];
const model = (url: string, timeoutMs = 5_000) => {
  const m = new OpenAIChatModel({
    baseUrl: `${url}/v1`,
    model: 'qwen2.5-coder:7b',
    apiKey: 'sk-local-test',
    timeoutMs,
  });
  models.push(m);
  return m;
};
afterEach(async () => {
  await Promise.all(models.splice(0).map((m) => m.close()));
  await server?.close();
  server = undefined;
});

describe('parseModelReply', () => {
  it('accepts a JSON object with a learnings array, optionally fenced', () => {
    expect(parseModelReply('{"learnings": []}')).toEqual([]);
    expect(parseModelReply('```json\n{"learnings": [1]}\n```')).toEqual([1]);
  });
  it('rejects prose, wrong shapes and trailing text', () => {
    expect(() => parseModelReply('Sure! Here are the learnings: ...')).toThrow(/not JSON/);
    expect(() => parseModelReply('[]')).toThrow(/learnings/);
    expect(() => parseModelReply('{"learnings": []} and more')).toThrow(/not JSON/);
  });
});

describe('OpenAIChatModel against a local chat-completions server', () => {
  it('posts the scrubbed chunk and parses the drafts', async () => {
    server = await startServer((req, res) => {
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') return json(res, 404, { error: 'not found' });
      json(res, 200, completion(JSON.stringify({ learnings: [DRAFT] })));
    });
    const result = await runPipeline(conversation, { model: model(server.url) });
    expect(result.errors).toEqual([]);
    expect(result.learnings).toHaveLength(1);
    expect(result.learnings[0]?.category).toBe('storage-state');
    const req = server.requests[0];
    expect(req?.headers.authorization).toBe('Bearer sk-local-test');
    const body = JSON.parse(req?.body ?? '{}');
    expect(body.model).toBe('qwen2.5-coder:7b');
    expect(body.messages[0].role).toBe('system');
    expect(body.messages[1].content).toContain('The nightly backup broke');
  });

  it('turns garbage, non-JSON bodies, HTTP errors and timeouts into chunk errors', async () => {
    const replies = [
      (res: Parameters<typeof json>[0]) => json(res, 200, completion('I found a few learnings! 1. Always back up.')),
      (res: Parameters<typeof json>[0]) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<html>502 Bad Gateway</html>');
      },
      (res: Parameters<typeof json>[0]) => json(res, 500, { error: 'model crashed' }),
      (res: Parameters<typeof json>[0]) => json(res, 200, { choices: [] }),
      () => undefined, // never answers: the client's timeout must fire
    ];
    let n = 0;
    server = await startServer((_req, res) => replies[n++]?.(res));
    // The answered requests under the default timeout, so a loaded machine cannot turn them into timeouts; the
    // last, never answered, under a short one.
    const conversation = (chunks: number): Conversation => ({
      source: 'plain',
      messages: Array.from({ length: chunks }, (_, i) => ({
        role: 'user' as const,
        kind: 'text' as const,
        text: `${i} `.repeat(400),
      })),
    });
    const config = { chunk_size: 900, chunk_overlap: 0 };
    const answered = await runPipeline(conversation(4), { model: model(server.url), config });
    const unanswered = await runPipeline(conversation(1), { model: model(server.url, 100), config });
    expect(answered.stats.chunks_failed).toBe(4);
    expect(unanswered.stats.chunks_failed).toBe(1);
    expect(answered.success || unanswered.success).toBe(false);
    expect(answered.errors.map((e) => [e.stage, e.chunk])).toEqual([0, 1, 2, 3].map((i) => ['model', i]));
    expect([...answered.errors, ...unanswered.errors].map((e) => e.message)).toEqual([
      expect.stringContaining('not JSON'),
      'model endpoint answered a body that is not JSON',
      'model endpoint answered HTTP 500',
      'completion has no choices[0].message.content string',
      'model request timed out after 100 ms',
    ]);
  });

  it('reports a refused connection as a chunk error', async () => {
    server = await startServer((_req, res) => json(res, 200, {}));
    const url = server.url;
    await server.close();
    server = undefined;
    const result = await runPipeline(conversation, { model: model(url) });
    expect(result.success).toBe(false);
    expect(result.errors[0]).toMatchObject({
      stage: 'model',
      chunk: 0,
      message: expect.stringContaining('model request failed'),
    });
  });
});
