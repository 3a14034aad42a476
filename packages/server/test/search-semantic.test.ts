// The only tests that load the embedding model (a few seconds of CPU): one warm start, one restart.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createSkillsStore } from '../src/store/skills.js';
import { SMALL_CATALOG } from './search-helpers.js';
import { startTestServer, type TestServer } from '../../../test/support/server.js';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'axle-semantic-'));
const env = { AXLE_CATALOG: SMALL_CATALOG, AXLE_SEMANTIC_SEARCH: 'on' };
let server: TestServer | undefined;
afterAll(async () => {
  await server?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const health = async (s: TestServer) => (await (await fetch(`${s.url}/health`)).json()).search;

async function waitForSemantic(s: TestServer): Promise<string> {
  // Loading the model takes seconds, more on a loaded machine; the test's own timeout is the bound.
  const deadline = Date.now() + 80_000;
  for (;;) {
    const { semantic } = await health(s);
    if (semantic !== 'warming' || Date.now() > deadline) return semantic;
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function discover(s: TestServer, body: object) {
  const res = await fetch(`${s.url}/discover`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  return res.json();
}

/** The `semantic search ready` log line of a start. */
const readyLog = (s: TestServer) => s.logs.map((l) => JSON.parse(l)).find((l) => l.msg === 'semantic search ready');

describe('semantic skill search', () => {
  it('answers lexically while warming, then finds a paraphrase with no word in common', async () => {
    server = await startTestServer(env, { dataDir });
    expect(await health(server)).toEqual({ lexical: 'ready', semantic: 'warming' });
    // Already answering (lexically) while the model loads.
    expect(await discover(server, { query: 'weather forecast' })).toMatchObject({
      search_mode: 'lexical',
      results: [{ id: 'weatherstack' }],
    });

    expect(await waitForSemantic(server)).toBe('ready');
    expect(readyLog(server)).toMatchObject({ skills: 16, computed: 16, reused: 0 });

    const query = 'will it rain tomorrow in Paris';
    // No lexical match at all: this comes from the embeddings and from the words the developer vocabulary adds
    // ("rain" -> weather forecast).
    expect(await createSkillsStore(server.db).lexicalSearch(query, {}, 10)).toEqual([]);
    const body = await discover(server, { query });
    // First in the embeddings and in the vocabulary's ranking (weights 1 and 1), absent from both BM25 rankings of
    // the request (1 and 0.3): 2 / 3.3 of the best score.
    expect(body.results[0]).toMatchObject({ id: 'weatherstack', relevance: 0.6061 });
    expect(body.search_mode).toBe('fused');

    // Both rankers agree on a plain query: first everywhere, relevance 1.
    const both = await discover(server, { query: 'run python code in a sandbox' });
    expect(both.results[0]).toMatchObject({ id: 'python-sandbox', relevance: 1 });

    // Filters apply to the semantic side too.
    const filtered = await discover(server, { query, category: 'monitoring' });
    for (const r of filtered.results) expect(r.category).toBe('monitoring');
  }, 90_000);

  // Found by sending hostile queries to a warm server: every text the model reads only as unknown pieces (emoji, NUL,
  // CJK) got one and the same vector, so "天気予報" and "😀" both answered the same arbitrary skills; text without a
  // word ("?.?.?") answered others.
  it('answers nothing for a query the model cannot read, and still reads the words beside what it cannot', async () => {
    for (const query of ['天気予報', 'погода', '😀', '\u0000', '\u200b\u200b', '?.?.?.?', '\u0301\u0301']) {
      const body = await discover(server!, { query });
      expect(body, JSON.stringify(query)).toMatchObject({ results_count: 0, search_mode: 'fused' });
    }
    const mixed = await discover(server!, { query: '😀 weather forecast 天気予報' });
    expect(mixed.results[0].id).toBe('weatherstack');
  }, 30_000);

  it('reuses the stored vectors after a restart on the same data dir', async () => {
    await server!.stop({ keepData: true });
    server = await startTestServer(env, { dataDir });
    expect(await waitForSemantic(server)).toBe('ready');
    expect(readyLog(server)).toMatchObject({ reused: 16, bundled: 0, computed: 0 });
    expect(server.logs.map((l) => JSON.parse(l)).find((l) => l.msg === 'skills catalog')).toMatchObject({
      replaced: false,
    });
    expect((await discover(server, { query: 'will it rain tomorrow in Paris' })).results[0].id).toBe('weatherstack');
  }, 90_000);
});
