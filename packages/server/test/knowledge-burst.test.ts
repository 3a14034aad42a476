// Knowledge search under a burst, over real HTTP: it never answers 500 (it falls back to lexical ranking, saying so in
// `search_mode`, when the embedding queue is full), and per-address limits kept in the database refuse the excess
// of one client with 429, directly and through the MCP endpoint's tools. The embedding worker is a stand-in on a
// real worker thread (fixtures/stand-in-embed-worker.mjs) behind the real pool and its bounded queue.
import { fileURLToPath } from 'node:url';
import { LIMITS } from '@axle/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/support/server.js';
import { learningsStore } from '../src/store/learnings.js';
import { newBuyer, seedLearning } from './money-helpers.js';
import { SMALL_CATALOG } from './search-helpers.js';

const STAND_IN_WORKER = fileURLToPath(new URL('./fixtures/stand-in-embed-worker.mjs', import.meta.url));
let server: TestServer;

/** A request from client address `ip` (the server trusts X-Forwarded-For here, as behind a proxy). */
const from = (ip: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': ip, ...headers },
    body: JSON.stringify(body),
  });

function tally(statuses: number[]): Record<number, number> {
  const t: Record<number, number> = {};
  for (const s of statuses) t[s] = (t[s] ?? 0) + 1;
  return t;
}

beforeAll(async () => {
  server = await startTestServer(
    {
      AXLE_CATALOG: SMALL_CATALOG,
      AXLE_SEMANTIC_SEARCH: 'on',
      AXLE_SEARCH_WORKERS: '1',
      AXLE_SEARCH_QUEUE_MAX: '0',
      AXLE_TRUST_PROXY: 'true',
    },
    { embedWorkerFile: STAND_IN_WORKER },
  );
  // Searchable like a published learning: a seq (the full-text row id); the schema indexes it.
  await seedLearning(server, { seq: await learningsStore.nextSeq(server.db) });
  while ((await (await fetch(`${server.url}/health`)).json()).search.semantic !== 'ready')
    await new Promise((r) => setTimeout(r, 20));
}, 60_000);
afterAll(async () => {
  await server?.stop();
});

describe('POST /knowledge under a burst', () => {
  it('answers 100 parallel anonymous searches without a 500: the limit refuses the excess, the rest fall back', async () => {
    const limit = LIMITS.perAddress.anonymousKnowledgeSearch.perMinute;
    const answers = await Promise.all(
      // SLOW: the stand-in model takes a second over each; with no queue, searches meanwhile are shed.
      Array.from({ length: 100 }, (_, i) =>
        from('198.51.100.1', '/knowledge', { query: `s3 multipart retry SLOW ${i}` }),
      ),
    );
    const bodies = await Promise.all(answers.map((r) => r.json()));
    expect(tally(answers.map((r) => r.status))).toEqual({ 200: limit, 429: 100 - limit });
    const served = bodies.filter((_, i) => answers[i]!.status === 200);
    const modes = tally(served.map((b) => (b.search_mode === 'lexical' ? 0 : b.search_mode === 'fused' ? 1 : 2)));
    // The worker cannot keep up with the burst: searches it could not take ran lexically, and say so; all found the learning.
    expect(modes[0]).toBeGreaterThan(0);
    expect(modes[2]).toBeUndefined();
    for (const b of served) expect(b.results_count).toBe(1);
    const refused = answers.find((r) => r.status === 429)!;
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);

    // Another address is not starved.
    expect((await from('198.51.100.2', '/knowledge', { query: 's3 multipart' })).status).toBe(200);
  }, 60_000);

  it('answers MCP batches of svc_knowledge with no inner 500, and limits /mcp per address', async () => {
    const batch = Array.from({ length: LIMITS.mcpHttp.maxBatch }, (_, i) => ({
      jsonrpc: '2.0',
      id: i,
      method: 'tools/call',
      params: { name: 'svc_knowledge', arguments: { query: `s3 retry slowdown ${i}` } },
    }));
    const accept = { accept: 'application/json, text/event-stream' };
    const answers = await Promise.all(Array.from({ length: 20 }, () => from('198.51.100.3', '/mcp', batch, accept)));
    expect(tally(answers.map((r) => r.status))).toEqual({ 200: 20 });
    const results = (await Promise.all(answers.map((r) => r.json()))).flat();
    expect(results).toHaveLength(200);
    const inner = results.map(
      (m: {
        result: { isError?: boolean; structuredContent?: Record<string, unknown>; content: Array<{ text: string }> };
      }) => (m.result.isError ? JSON.parse(m.result.content[0]!.text).status : 200),
    );
    // The searches count against the MCP caller's address: the first ones are answered, the rest refused.
    expect(tally(inner)).toEqual({
      200: LIMITS.perAddress.anonymousKnowledgeSearch.perMinute,
      429: 200 - LIMITS.perAddress.anonymousKnowledgeSearch.perMinute,
    });

    // /mcp itself: requests past the limit are refused before any work (the 20 above counted too).
    const mcpLimit = LIMITS.perAddress.mcp.perMinute;
    const more = await Promise.all(
      Array.from({ length: mcpLimit - 20 + 5 }, () => from('198.51.100.3', '/mcp', { not: 'json-rpc' }, accept)),
    );
    expect(tally(more.map((r) => r.status))).toEqual({ 400: mcpLimit - 20, 429: 5 });
  }, 60_000);
});

describe('POST /discover from one address', () => {
  it('refuses anonymous searches past the per-address limit with 429, directly and through MCP; a key searches on, within its account limit', async () => {
    const limit = LIMITS.perAddress.anonymousDiscover.perMinute;
    const answers = await Promise.all(
      Array.from({ length: limit + 10 }, (_, i) => from('198.51.100.4', '/discover', { query: `weather ${i}` })),
    );
    expect(tally(answers.map((r) => r.status))).toEqual({ 200: limit, 429: 10 });
    const refused = answers.find((r) => r.status === 429)!;
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await refused.json()).toMatchObject({ error: expect.any(String) });
    // The MCP tool's search counts against the same address.
    const call = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'svc_discover', arguments: { query: 'weather' } },
    };
    const viaMcp = await from('198.51.100.4', '/mcp', call, { accept: 'application/json, text/event-stream' });
    const result = ((await viaMcp.json()) as { result: { isError?: boolean; content: Array<{ text: string }> } })
      .result;
    expect(result.isError).toBe(true);
    expect(JSON.parse(result.content[0]!.text).status).toBe(429);
    // With a key, the same address searches on; another address was never limited.
    const { key } = await newBuyer(server);
    expect((await from('198.51.100.4', '/discover', { query: 'weather' }, { 'x-api-key': key })).status).toBe(200);
    expect((await from('198.51.100.5', '/discover', { query: 'weather' })).status).toBe(200);
  }, 60_000);
});
