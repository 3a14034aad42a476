import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ERROR_CODES } from '@axle/sdk';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MCP_DEFAULT_CATEGORY } from '../src/catalog/mapping.js';
import { registrySkill, type SyncedServer } from '../src/catalog/official-registry.js';
import { createLogger } from '../src/logger.js';
import { catalogSync } from '../src/scripts/catalog-sync.js';
import { createLearningsService } from '../src/services/learnings.js';
import { createRegistrySync, LEASE_MS, type RegistrySync } from '../src/services/registry-sync.js';
import { createSkillsService } from '../src/services/skills.js';
import type { Store } from '../src/store/open.js';
import { leasesStore } from '../src/store/leases.js';
import { registryStore } from '../src/store/registry.js';
import { BACKEND, backendEnv, openTestStore } from '../../../test/support/backend.js';
import { startTestServer } from '../../../test/support/server.js';
import { startRegistryStandIn, type StandinVersion } from './registry-standin.js';
import { SMALL_CATALOG } from './search-helpers.js';

const T0 = Date.parse('2026-01-10T12:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();

/** `n` servers io.github.acme/tool-000... with one version each. */
function fleet(n: number): StandinVersion[] {
  return Array.from({ length: n }, (_, i) => ({
    name: `io.github.acme/tool-${String(i).padStart(3, '0')}`,
    version: '1.0.0',
    description: `Acme tool number ${i} for widget inventory`,
    isLatest: true,
    status: 'active' as const,
    updatedAt: iso(T0 + i * 1000),
    repository: `https://github.com/acme/tool-${i}`,
  }));
}

describe('registry sync against a stand-in of the v0.1 API', () => {
  let standin: Awaited<ReturnType<typeof startRegistryStandIn>>;
  let dir: string;
  let store: Awaited<ReturnType<typeof openTestStore>>;
  let db: Store['db'];
  let now: number;
  let changes: number;
  let sync: RegistrySync;

  beforeAll(async () => {
    standin = await startRegistryStandIn();
  });
  afterAll(async () => {
    await standin.close();
  });
  beforeEach(async () => {
    standin.clear();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'axle-registry-'));
    now = T0 + 86_400_000;
    store = await openTestStore(() => now);
    db = store.db;
    changes = 0;
    sync = createRegistrySync({
      db,
      clock: { now: () => now },
      logger: createLogger('silent'),
      onChange: async () => {
        changes += 1;
      },
    });
  });
  afterEach(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
    expect(standin.invalid).toEqual([]);
  });

  const visible = async () =>
    new Map((await registryStore.visible(db)).map((s) => [s.name, `${s.version} ${s.status}`]));

  it('pages with limit=100 and the cursor, then asks for changes since the newest updatedAt minus 5 minutes', async () => {
    for (const v of fleet(250)) standin.put(v);
    standin.requests.length = 0;
    const first = await sync.sync(standin.url);
    expect(first).toMatchObject({ added: 250, updated: 0, hidden: 0, received: 250, pages: 3, repaired: 0 });
    expect(standin.requests.filter((r) => r.startsWith('/v0.1/servers?'))).toHaveLength(3);
    for (const r of standin.requests) expect(r).toContain('limit=100');
    expect(standin.requests[1]).toContain('cursor=');
    expect((await visible()).size).toBe(250);
    expect(changes).toBe(1);

    standin.requests.length = 0;
    const again = await sync.sync(standin.url);
    const newest = T0 + 249 * 1000;
    expect(standin.requests[0]).toContain(`updated_since=${encodeURIComponent(iso(newest - 5 * 60_000))}`);
    // The margin re-reads what changed in the last 5 minutes: upserted again, nothing counted as changed.
    expect(again).toMatchObject({ added: 0, updated: 0, hidden: 0 });
    expect(changes).toBe(1);
  });

  it('keeps one version per server searchable, repairs a latest flag that flipped without an updatedAt change, hides deleted and marks deprecated', async () => {
    // Hours apart, so a's first version lies outside the 5-minute margin of the next incremental sync.
    const [a, b, c] = fleet(3).map((v, i) => ({ ...v, updatedAt: iso(T0 + i * 3_600_000) }));
    standin.put(a!);
    standin.put(b!);
    standin.put(c!);
    await sync.sync(standin.url);

    // a: 2.0.0 published; 1.0.0 loses isLatest but keeps its updatedAt, so the incremental feed omits it.
    standin.put({ ...a!, isLatest: false });
    standin.put({ ...a!, version: '2.0.0', updatedAt: iso(T0 + 10_000_000) });
    // b deleted, c deprecated (both with a new updatedAt, as the registry does on a status change).
    standin.put({ ...b!, status: 'deleted', updatedAt: iso(T0 + 10_000_001) });
    standin.put({ ...c!, status: 'deprecated', updatedAt: iso(T0 + 10_000_002) });
    standin.requests.length = 0;
    const report = await sync.sync(standin.url);
    expect(report).toMatchObject({ added: 0, updated: 2, hidden: 1, repaired: 1 });
    expect(standin.requests).toContain(`/v0.1/servers/${encodeURIComponent(a!.name)}/versions/latest`);
    expect(await visible()).toEqual(
      new Map([
        [a!.name, '2.0.0 active'],
        [c!.name, '1.0.0 deprecated'],
      ]),
    );
    const rows = await registryStore.versionsOf(db, standin.url, [a!.name]);
    expect(rows.filter((r) => r.isLatest).map((r) => r.version)).toEqual(['2.0.0']);
  });

  it('changes nothing when a page fails mid-sync or the registry is unreachable, and recovers on the next run', async () => {
    for (const v of fleet(150)) standin.put(v);
    await sync.sync(standin.url);
    const before = await visible();
    const state = await registryStore.state(db, standin.url);

    for (const v of fleet(150)) standin.put({ ...v, description: 'changed', updatedAt: iso(T0 + 20_000_000) });
    standin.put({ ...fleet(1)[0]!, name: 'io.github.acme/brand-new', updatedAt: iso(T0 + 20_000_000) });
    standin.failListPage(2);
    await expect(sync.sync(standin.url)).rejects.toMatchObject({ code: ERROR_CODES.PROVIDER_UNAVAILABLE });
    expect(await visible()).toEqual(before);
    expect(await registryStore.state(db, standin.url)).toEqual(state);

    await expect(sync.sync('http://127.0.0.1:9')).rejects.toMatchObject({ code: ERROR_CODES.PROVIDER_UNAVAILABLE });
    expect(await visible()).toEqual(before);

    // A registry that answers garbage, the wrong shape or too much is as good as unreachable.
    for (const body of [
      '{"servers": [',
      '{"servers": [{"server": {"name": "x"}}]}',
      `{"pad": "${'x'.repeat(5000)}"}`,
    ]) {
      standin.answerNextListWith(body);
      const small = createRegistrySync({
        db,
        clock: { now: () => now },
        logger: createLogger('silent'),
        onChange: async () => undefined,
        maxResponseBytes: 4096,
      });
      await expect(small.sync(standin.url)).rejects.toMatchObject({ code: ERROR_CODES.PROVIDER_UNAVAILABLE });
    }
    expect(await visible()).toEqual(before);

    const report = await sync.sync(standin.url);
    expect(report).toMatchObject({ added: 1, updated: 150, hidden: 0 });
  });

  it('runs once across instances: the lease holder syncs, the others skip, and nobody syncs again before the interval', async () => {
    for (const v of fleet(5)) standin.put(v);
    const instance = (holder: string) =>
      createRegistrySync({
        db,
        clock: { now: () => now },
        logger: createLogger('silent'),
        onChange: async () => undefined,
        source: standin.url,
        intervalMs: 3_600_000,
        holder,
      });
    const [one, two] = [instance('one'), instance('two')];
    const ran = await Promise.all([one.tick(), two.tick()]);
    expect(ran.filter((r) => r !== undefined)).toHaveLength(1);
    now += 60_000;
    expect(await two.tick()).toBeUndefined();
    now += 3_600_000;
    expect(await two.tick()).toMatchObject({ added: 0 });
    // A lease whose holder died (never released) blocks the due sync until it expires.
    now += 3_600_000;
    expect(await leasesStore.take(db, 'registry-sync', 'dead', now, now + LEASE_MS)).toBe(true);
    expect(await one.tick()).toBeUndefined();
    now += LEASE_MS;
    expect(await one.tick()).toBeDefined();
  });

  it('adds synced servers to the catalog; an operator catalog stays authoritative; GET /skill data shows install variables', async () => {
    const operator = path.join(dir, 'catalog.json');
    const own = {
      id: 'acme-widgets',
      name: 'Acme widgets (operator entry)',
      description: 'The operator describes the Acme widget server here',
      category: 'data-processing',
      tags: ['mcp'],
      type: 'mcp_server',
      connection: { protocol: 'stdio', endpoint: 'acme', auth: 'none', docs: 'https://github.com/acme/widgets' },
      pricing: { model: 'free', cost_usd: '0', note: '' },
      quality: { reliability: 0.5, verified: false },
    };
    fs.writeFileSync(operator, JSON.stringify([own]));
    standin.put({
      name: 'io.github.acme/widgets',
      version: '3.0.0',
      description: 'Registry text for the widget server',
      isLatest: true,
      status: 'active',
      updatedAt: iso(T0),
      repository: 'https://github.com/acme/widgets',
    });
    standin.put({
      name: 'com.example/zebra-telemetry',
      version: '0.2.0',
      description: 'Zebra telemetry readings for herd trackers',
      isLatest: true,
      status: 'active',
      updatedAt: iso(T0 + 1),
      packages: [
        {
          registryType: 'npm',
          identifier: '@example/zebra-mcp',
          version: '0.2.0',
          transport: { type: 'stdio' },
          environmentVariables: [
            { name: 'ZEBRA_API_KEY', description: 'API key', isSecret: true },
            { name: 'ZEBRA_REGION', description: 'Region code' },
          ],
        },
      ],
    });
    const skills = await createSkillsService({
      repo: store.skills,
      db,
      logger: createLogger('silent'),
      catalogPath: operator,
      semanticSearch: false,
      knowledgeHints: createLearningsService({
        db,
        learningsSearch: store.learningsSearch,
        clock: { now: () => now },
      }),
    });
    try {
      const withReload = createRegistrySync({
        db,
        clock: { now: () => now },
        logger: createLogger('silent'),
        onChange: () => skills.reloadCatalog(),
      });
      expect(await withReload.sync(standin.url)).toMatchObject({ added: 2 });
      expect(await skills.count()).toBe(2);
      expect((await skills.get('acme-widgets'))?.name).toBe('Acme widgets (operator entry)');
      const zebra = await skills.get('com-example-zebra-telemetry');
      expect(zebra?.connection.command).toBe('npx -y @example/zebra-mcp');
      expect(zebra?.install?.env).toEqual([
        { name: 'ZEBRA_API_KEY', description: 'API key', secret: true },
        { name: 'ZEBRA_REGION', description: 'Region code', secret: false },
      ]);
      expect(zebra?.content_preview).toContain('ZEBRA_API_KEY (secret)');
      const found = await skills.search.search({ query: 'zebra herd telemetry', mode: 'lexical' });
      expect(found.results[0]?.id).toBe('com-example-zebra-telemetry');

      standin.put({
        ...standin.get('com.example/zebra-telemetry', '0.2.0')!,
        status: 'deleted',
        updatedAt: iso(T0 + 5),
      });
      expect(await withReload.sync(standin.url)).toMatchObject({ hidden: 1 });
      expect(await skills.get('com-example-zebra-telemetry')).toBeUndefined();
      expect((await skills.search.search({ query: 'zebra herd telemetry', mode: 'lexical' })).results).toEqual([]);
      // On PostgreSQL the search reads skill_terms, which each import writes from the skills' tsvectors.
      if (db.dialect === 'postgres') {
        const order = 'ORDER BY lexeme, doc';
        const expected = await db.all(
          `SELECT p.lexeme AS lexeme, s.id AS doc, s.fts_len AS len, p.a AS a, p.b AS b, p.c AS c, p.d AS d
             FROM skills s CROSS JOIN LATERAL axle_postings(s.fts) p ${order}`,
        );
        expect(expected.map((r) => r.doc)).toContain('acme-widgets');
        expect(await db.all(`SELECT lexeme, doc, len, a, b, c, d FROM skill_terms ${order}`)).toEqual(expected);
      }

      // The file is not held in memory: a reload reads it as it is now, and an unchanged one is not imported again.
      expect(await skills.reloadCatalog()).toBe(false);
      fs.writeFileSync(operator, JSON.stringify([{ ...own, name: 'Acme widgets (edited)' }]));
      expect(await skills.reloadCatalog()).toBe(true);
      expect((await skills.get('acme-widgets'))?.name).toBe('Acme widgets (edited)');
    } finally {
      await skills.close();
    }
  });

  it('axle-server catalog sync --from prints the counts; bad arguments exit 2, an unreachable registry 1', async () => {
    for (const v of fleet(3)) standin.put(v);
    const lines: string[] = [];
    const env = { ...store.env, AXLE_DATA_DIR: path.join(dir, 'cli') };
    expect(await catalogSync(['--from', standin.url], env, (l) => lines.push(l))).toBe(0);
    expect(JSON.parse(lines[0]!)).toMatchObject({ ok: true, added: 3, updated: 0, hidden: 0 });
    expect(await catalogSync([], env, (l) => lines.push(l))).toBe(2);
    expect(await catalogSync(['--from', 'ftp://x'], env, (l) => lines.push(l))).toBe(2);
    expect(await catalogSync(['--from', 'http://127.0.0.1:9'], env, (l) => lines.push(l))).toBe(1);
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({ ok: false });
  });

  it.skipIf(BACKEND === 'sqlite')(
    'a sync on one server is served by another on the same PostgreSQL database without a restart (NOTIFY)',
    async () => {
      standin.put({
        name: 'com.example/yak-shaver',
        version: '1.0.0',
        description: 'Yak shaving schedules for mountain herders',
        isLatest: true,
        status: 'active',
        updatedAt: iso(T0),
      });
      const shared = { AXLE_CATALOG: SMALL_CATALOG, ...(await backendEnv('migrated')) };
      const other = await startTestServer(shared);
      const health = async (server: typeof other) =>
        ((await (await fetch(`${server.url}/health`)).json()) as { skills_catalog_size: number }).skills_catalog_size;
      const before = await health(other);
      const syncing = await startTestServer({ ...shared, AXLE_REGISTRY_SYNC_URL: standin.url });
      try {
        const deadline = Date.now() + 20_000;
        while ((await health(other)) === before && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        expect(await health(other)).toBe(before + 1);
        // Searched from the memory of the instance that did not sync, too.
        const discovered = await fetch(`${other.url}/discover`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query: 'yak shaving schedules for herders' }),
        });
        const found = (await discovered.json()) as {
          results: Array<{ name: string }>;
        };
        expect(found.results.map((r) => r.name)).toContain('com.example/yak-shaver');
        // Served by the instance that did not sync: it reloaded on the other's notification.
        expect(other.logs.some((l) => JSON.parse(l).msg === 'registry sync')).toBe(false);
      } finally {
        await syncing.stop();
        await other.stop();
      }
    },
  );

  it('a server with AXLE_REGISTRY_SYNC_URL syncs once it listens, and serves the synced servers', async () => {
    standin.put({
      name: 'com.example/zebra-telemetry',
      version: '0.2.0',
      description: 'Zebra telemetry readings for herd trackers',
      isLatest: true,
      status: 'active',
      updatedAt: iso(T0),
    });
    const server = await startTestServer({ AXLE_CATALOG: SMALL_CATALOG, AXLE_REGISTRY_SYNC_URL: standin.url });
    try {
      const deadline = Date.now() + 20_000;
      while (!server.logs.some((l) => JSON.parse(l).msg === 'registry sync') && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(server.logs.map((l) => JSON.parse(l)).find((l) => l.msg === 'registry sync')).toMatchObject({ added: 1 });
      const res = await fetch(`${server.url}/skill/com-example-zebra-telemetry`);
      expect(res.status).toBe(200);
      expect(((await res.json()) as { tags: string[] }).tags).toContain('registry');
      expect(standin.requests[0]).toMatch(/^\/v0\.1\/servers\?limit=100$/);
    } finally {
      await server.stop();
    }
  });
});

describe('registrySkill: a synced server whose registry entry describes nothing', () => {
  const synced = (name: string, description: string, title?: string): SyncedServer => ({
    name,
    version: '1.0.0',
    isLatest: true,
    status: 'active',
    updatedAt: iso(T0),
    detail: { name, version: '1.0.0', description, ...(title && { title }) },
  });

  it('gets a description built from its product and the category a rule placed it in', () => {
    const empty = registrySkill(synced('io.github.acme/slack-notifier', ''));
    expect(empty.description).toBe('slack notifier MCP server for communication: messages, e-mail and calendars.');
    expect(empty.category).toBe('communication');
    expect(empty.quality.reliability).toBeLessThan(
      registrySkill(synced('io.github.acme/slack-notifier', 'Post alerts to Slack channels')).quality.reliability,
    );
    const restated = registrySkill(synced('com.example/zorblat', 'Zorblat MCP server', 'Zorblat'));
    expect(restated.description).toBe('Zorblat MCP server.');
    expect(restated.category).toBe(MCP_DEFAULT_CATEGORY);
  });

  it('keeps a description that says more than its names', () => {
    const kept = registrySkill(synced('io.github.acme/zorblat', 'Zorblat MCP server that reads herd telemetry'));
    expect(kept.description).toBe('Zorblat MCP server that reads herd telemetry');
  });
});
