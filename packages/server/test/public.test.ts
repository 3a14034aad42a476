import { CATEGORIES, CategoriesResponse, HealthResponse, RootResponse, StatsResponse } from '@axle/sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadCatalog } from '../src/catalog/load.js';
import { learningsStore } from '../src/store/learnings.js';
import { queryCountersStore } from '../src/store/query-counters.js';
import { type TestServer, startTestServer } from '../../../test/support/server.js';
import { newLearning } from './learning-fixture.js';

const bundled = loadCatalog();
let server: TestServer;

async function get(path: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(server.url + path);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

beforeEach(async () => {
  server = await startTestServer();
});
afterEach(async () => {
  await server?.stop();
});

/** Two approved learnings in storage-state, one in monitoring, and one of each hidden status. */
async function seed(): Promise<void> {
  for (const l of [
    newLearning(),
    newLearning(),
    newLearning({ category: 'monitoring' }),
    newLearning({
      category: 'code-execution',
      status: 'pending_review',
      reviewReason: ['forced_review'],
      publishedAt: null,
    }),
    newLearning({ category: 'code-execution', status: 'rejected', publishedAt: null }),
    newLearning({ category: 'web-interaction', status: 'retracted' }),
  ]) {
    await learningsStore.insert(server.db, l);
  }
}

describe('GET /', () => {
  it('describes the service with every field the spec names', async () => {
    const { status, body } = await get('/');
    expect(status).toBe(200);
    expect(RootResponse.strict().safeParse(body).success).toBe(true);
    expect(body).toMatchObject({
      name: 'Axle',
      version: '0.9.4',
      operator: 'Axle',
      wallet: '0x000000000000000000000000000000000000a11e',
      network: 'eip155:8453',
      protocol: 'x402',
      learnings_count: 0,
      skills_catalog_size: bundled.length,
    });
    // The contract's name for the same count stays beside the one that says what it counts.
    expect(body.catalog_size).toBe(0);
    // Every category, with what it holds: a newcomer sees the skills even before the first learning.
    const skillsIn = (c: string) => bundled.filter((s) => s.category === c).length;
    expect(body.categories).toEqual(
      CATEGORIES.map((category) => ({ category, skills: skillsIn(category), learnings: 0 })),
    );
    expect(typeof body.tagline).toBe('string');
    expect(new Set(body.skills_categories as string[])).toEqual(new Set(bundled.map((s) => s.category)));
    const endpoints = body.endpoints as Record<string, string>;
    for (const key of [
      'GET /',
      'GET /health',
      'GET /categories',
      'GET /stats',
      'GET /openapi.json',
      'GET /.well-known/agent.json',
    ]) {
      expect(endpoints[key], key).toBeTruthy();
    }
  });

  it('reports the build time, not the request time', async () => {
    const first = (await get('/')).body.built as string;
    expect(Number.isNaN(Date.parse(first))).toBe(false);
    // The test clock sits at 2026-01-01; a build stamp is real wall-clock time in the past.
    expect(Date.parse(first)).not.toBe(server.clock.now());
    expect(Date.parse(first)).toBeLessThanOrEqual(Date.now());
    server.clock.advance(86_400_000);
    expect((await get('/')).body.built).toBe(first);
  });

  it('counts only approved learnings, per category', async () => {
    await seed();
    const { body } = await get('/');
    expect(body.learnings_count).toBe(3);
    const learnings = Object.fromEntries(
      (body.categories as Array<{ category: string; learnings: number }>).map((c) => [c.category, c.learnings]),
    );
    expect(learnings).toEqual({
      ...Object.fromEntries(CATEGORIES.map((c) => [c, 0])),
      'storage-state': 2,
      monitoring: 1,
    });
  });

  it('takes operator and wallet from the configuration', async () => {
    await server.stop();
    server = await startTestServer({
      AXLE_OPERATOR: 'Example Ops',
      AXLE_PAY_TO: '0x1111111111111111111111111111111111111111',
    });
    expect((await get('/')).body).toMatchObject({
      operator: 'Example Ops',
      wallet: '0x1111111111111111111111111111111111111111',
    });
  });
});

describe('GET /health', () => {
  it('reports status, uptime from the injected clock, catalog sizes, search state and time', async () => {
    server.clock.advance(90_000);
    await seed();
    const { status, body } = await get('/health');
    expect(status).toBe(200);
    expect(HealthResponse.strict().safeParse(body).success).toBe(true);
    expect(body).toMatchObject({
      status: 'ok',
      uptime: 90,
      learnings_count: 3,
      catalog_size: 3,
      skills_catalog_size: bundled.length,
      timestamp: new Date(server.clock.now()).toISOString(),
    });
    expect(body.search).toMatchObject({ lexical: 'ready', semantic: 'disabled' });
  });
});

describe('GET /categories', () => {
  it('lists all eight categories with counts of visible learnings and their total', async () => {
    await seed();
    const { status, body } = await get('/categories');
    expect(status).toBe(200);
    expect(CategoriesResponse.strict().safeParse(body).success).toBe(true);
    expect(Object.keys(body.categories as object).sort()).toEqual([...CATEGORIES].sort());
    expect(body.categories).toMatchObject({
      'storage-state': 2,
      monitoring: 1,
      'code-execution': 0,
      'web-interaction': 0,
      communication: 0,
    });
    expect(body.total).toBe(3);
  });
});

describe('GET /stats', () => {
  it('reports catalog sizes, category counts, skill types, searches served, uptime and version', async () => {
    await seed();
    server.clock.advance(2_500);
    const { status, body } = await get('/stats');
    expect(status).toBe(200);
    expect(StatsResponse.strict().safeParse(body).success).toBe(true);
    const types = bundled.reduce<Record<string, number>>(
      (acc, s) => ({ ...acc, [s.type]: (acc[s.type] ?? 0) + 1 }),
      {},
    );
    expect(body).toMatchObject({
      learnings_count: 3,
      catalog_size: 3,
      learning_categories: 2,
      categories: 2,
      skills_catalog_size: bundled.length,
      skills_categories: new Set(bundled.map((s) => s.category)).size,
      types: { api: types.api ?? 0, mcp_server: types.mcp_server ?? 0 },
      uptime: 2.5,
      version: '0.9.4',
    });
    expect((body.queries as Record<string, number>).knowledge).toBe(0);
  });

  it('counts searches in the database', async () => {
    const before = ((await get('/stats')).body.queries as Record<string, number>).discover!;
    await Promise.all(Array.from({ length: 5 }, () => queryCountersStore.increment(server.db, 'discover')));
    await queryCountersStore.increment(server.db, 'knowledge');
    const { queries } = (await get('/stats')).body as { queries: Record<string, number> };
    expect(queries.discover).toBe(before + 5);
    expect(queries.knowledge).toBe(1);
  });
});

describe('searches served', () => {
  it('counts each answered POST /discover, not rejected ones', async () => {
    const post = (body: unknown) =>
      fetch(`${server.url}/discover`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await post({ query: 'send email' })).status).toBe(200);
    expect((await post({ query: 'weather forecast', limit: 3 })).status).toBe(200);
    expect((await post({ query: '' })).status).toBe(400);
    expect((await get('/stats')).body.queries).toMatchObject({ discover: 2, knowledge: 0 });
  });
});

describe('restart on the same data dir', () => {
  it('saves searches still counted in memory when it stops', async () => {
    const post = () =>
      fetch(`${server.url}/discover`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"query":"send email"}',
      });
    const before = ((await get('/stats')).body.queries as Record<string, number>).discover!;
    expect((await post()).status).toBe(200);
    expect((await post()).status).toBe(200);
    expect(((await get('/stats')).body.queries as Record<string, number>).discover).toBe(before + 2);

    const { dataDir, clock } = server;
    await server.stop({ keepData: true });
    server = await startTestServer({}, { dataDir, clock });
    expect(((await get('/stats')).body.queries as Record<string, number>).discover).toBe(before + 2);
  });

  it('keeps learnings and search counters', async () => {
    const kept = newLearning({ category: 'payment-financial', tags: ['x402', 'usdc'] });
    await learningsStore.insert(server.db, kept);
    await queryCountersStore.increment(server.db, 'knowledge');
    await queryCountersStore.increment(server.db, 'knowledge');
    const before = (await get('/stats')).body;

    const { dataDir, clock } = server;
    await server.stop({ keepData: true });
    server = await startTestServer({}, { dataDir, clock });

    const after = (await get('/stats')).body;
    expect(after.learnings_count).toBe(1);
    expect(after.queries).toEqual(before.queries);
    expect((after.queries as Record<string, number>).knowledge).toBe(2);
    expect((await get('/categories')).body.categories).toMatchObject({ 'payment-financial': 1 });
    expect(await learningsStore.byId(server.db, kept.id)).toMatchObject({ ...kept, unlockCount: 0, grossMicro: 0 });
  });
});
