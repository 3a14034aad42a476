// Three built server processes on one PostgreSQL database behind a round-robin proxy: money, limits and
// the audit chain stay exact across instances, and losing one instance loses no acknowledged write. Two more
// on another database: the tools one searches in memory follow the catalog another imported.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Skill } from '@axle/sdk';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadCatalog } from '../src/catalog/load.js';
import { systemClock } from '../src/clock.js';
import { verifyAuditChain } from '../src/services/audit.js';
import { createJwtService } from '../src/services/jwt.js';
import { checkLedger } from '../src/services/ledger-check.js';
import { creditsStore } from '../src/store/credits.js';
import { jobLeasesStore } from '../src/store/job-leases.js';
import { openStore, type Store } from '../src/store/open.js';
import { BACKEND, backendEnv } from '../../../test/support/backend.js';
import { startCluster } from '../../../test/support/cluster.js';
import { learningBody } from './knowledge-helpers.js';
import { newBuyer, seedLearning, signAuthorization, v1Header } from './money-helpers.js';
import { SMALL_CATALOG } from './search-helpers.js';

/** The retention job's interval here: each instance looks four times per interval. */
const JOB_INTERVAL_MS = 1000;
const PAY_TO = '0x000000000000000000000000000000000000a11e';

type Cluster = Awaited<ReturnType<typeof startCluster>>;

/** Three processes on a machine that also runs the rest of the suite: the end-to-end steps get room. */
const SLOW = { timeout: 180_000 };

describe.skipIf(BACKEND !== 'postgres')('three instances on one PostgreSQL database', SLOW, () => {
  let cluster: Cluster;
  let store: Store;
  /** What the money helpers need of a server: the shared database and a clock (the instances use the system clock). */
  let shared: Parameters<typeof newBuyer>[0];

  beforeAll(async () => {
    const { AXLE_DATABASE_URL } = await backendEnv('empty');
    // The instances start together on an empty database: they race to migrate and import the catalog.
    cluster = await startCluster({
      n: 3,
      databaseUrl: AXLE_DATABASE_URL,
      env: { AXLE_RETENTION_INTERVAL_MS: String(JOB_INTERVAL_MS) },
    });
    // The test's own connections to the same database, for seeding and for checking.
    store = await openStore({ databaseUrl: AXLE_DATABASE_URL, databasePool: 4, dataDir: os.tmpdir(), now: Date.now });
    shared = { db: store.db, clock: systemClock } as unknown as Parameters<typeof newBuyer>[0];
  }, 180_000);
  afterAll(async () => {
    await cluster?.stop();
    await store?.db.close();
  });

  it('migrated once and imported the catalog once though all three started together', async () => {
    const versions = await store.db.all<{ version: number }>('SELECT version FROM schema_migrations');
    expect(versions.length).toBeGreaterThan(0);
    expect(new Set(versions.map((v) => v.version)).size).toBe(versions.length);
    const health = await Promise.all(cluster.instances.map(async (i) => (await fetch(`${i.url}/health`)).status));
    expect(health).toEqual([200, 200, 200]);
  });

  it('N credits and N+10 parallel unlocks spread over the instances: exactly N succeed', async () => {
    const N = 15;
    const buyer = await newBuyer(shared, { credits: N });
    const ls = await Promise.all(Array.from({ length: N + 10 }, () => seedLearning(shared)));
    const statuses = await Promise.all(
      ls.map(
        async (l) => (await fetch(`${cluster.url}/knowledge/${l.id}`, { headers: { 'x-api-key': buyer.key } })).status,
      ),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(N);
    expect(statuses.filter((s) => s === 402)).toHaveLength(10);
    expect((await creditsStore.balance(store.db, buyer.accountId)).unlocks).toBe(0);
    expect(await checkLedger(store.db)).toEqual([]);
  });

  it('one x402 authorization sent to all three at once buys one unlock', async () => {
    const l = await seedLearning(shared);
    const payer = privateKeyToAccount(generatePrivateKey());
    const payment = v1Header(
      await signAuthorization(payer, {
        to: PAY_TO,
        value: 80_000,
        validBefore: BigInt(Math.floor(Date.now() / 1000) + 120),
      }),
    );
    const responses = await Promise.all(
      cluster.instances.flatMap((i) =>
        Array.from({ length: 4 }, () => fetch(`${i.url}/knowledge/${l.id}`, { headers: { 'x-payment': payment } })),
      ),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 402)).toHaveLength(11);
    const paid = await store.db.get<{ n: number }>(
      'SELECT COUNT(*) AS n FROM unlocks WHERE learning_id = ? AND gross_micro > 0',
      [l.id],
    );
    expect(paid?.n).toBe(1);
  });

  it("one account's POST /learn limit (20 a minute) holds across the instances", async () => {
    const author = await newBuyer(shared);
    const responses = await Promise.all(
      Array.from({ length: 26 }, (_, i) =>
        fetch(`${cluster.url}/learn`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': author.key },
          body: JSON.stringify(learningBody(7000 + i, { title: `Cluster item ${i}: ${learningBody(7000 + i).title}` })),
        }),
      ),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 429)).toHaveLength(6);
    expect(statuses.filter((s) => s === 201)).toHaveLength(20);
  });

  it('the audit chain verifies after 300 concurrent appends through all three', async () => {
    const jwt = createJwtService(new TextEncoder().encode(cluster.jwtSecret), systemClock);
    const accounts = await Promise.all(Array.from({ length: 30 }, () => newBuyer(shared)));
    const before = (await verifyAuditChain(store.db)).checked;
    const responses = await Promise.all(
      accounts.flatMap((a) =>
        Array.from({ length: 10 }, async (_, i) => {
          const token = await jwt.issue(a.accountId);
          return fetch(`${cluster.url}/account/api-keys`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
            body: JSON.stringify({ name: `k${i}` }),
          });
        }),
      ),
    );
    expect(responses.filter((r) => r.status === 201 || r.status === 200)).toHaveLength(300);
    expect(await verifyAuditChain(store.db)).toEqual({ ok: true, checked: before + 300 });
  });

  it('the background job runs once per interval across the three, never more', async () => {
    const runs = async () => (await jobLeasesStore.byName(store.db, 'retention'))?.runs ?? 0;
    const [before, start] = [await runs(), Date.now()];
    // Real processes on real timers: watch them for a few intervals.
    await new Promise((r) => setTimeout(r, 4 * JOB_INTERVAL_MS));
    const ran = (await runs()) - before;
    const intervals = (Date.now() - start) / JOB_INTERVAL_MS;
    expect(ran).toBeLessThanOrEqual(Math.ceil(intervals) + 1);
    expect(ran).toBeGreaterThanOrEqual(1);
  });

  it('SIGKILL of one instance mid-load: the others keep answering, no acknowledged write is lost, the ledger checks', async () => {
    const buyer = await newBuyer(shared, { credits: 200 });
    const ls = await Promise.all(Array.from({ length: 120 }, () => seedLearning(shared)));
    const acknowledged: string[] = [];
    const statuses: number[] = [];
    const unlock = async (id: string) => {
      const res = await fetch(`${cluster.url}/knowledge/${id}`, { headers: { 'x-api-key': buyer.key } }).catch(
        () => undefined,
      );
      statuses.push(res?.status ?? 0);
      if (res?.status === 200) acknowledged.push(id);
      await res?.arrayBuffer();
    };
    const first = Promise.all(ls.slice(0, 60).map((l) => unlock(l.id)));
    // Mid-load: part of the first wave is in flight on the instance that dies.
    await new Promise((r) => setTimeout(r, 30));
    cluster.kill(1);
    await first;
    // Afterwards every request is answered by the two left.
    await Promise.all(ls.slice(60).map((l) => unlock(l.id)));
    if (!statuses.slice(-60).every((s) => s === 200))
      console.log(statuses, cluster.instances.map((i) => i.log.slice(-3000)).join('\n---\n'));
    expect(statuses.slice(-60).every((s) => s === 200)).toBe(true);
    const stored = await store.db.all<{ learning_id: string }>('SELECT learning_id FROM unlocks WHERE buyer = ?', [
      buyer.accountId,
    ]);
    const storedIds = new Set(stored.map((r) => r.learning_id));
    for (const id of acknowledged) expect(storedIds.has(id)).toBe(true);
    const balance = await creditsStore.balance(store.db, buyer.accountId);
    expect(balance.unlocks).toBe(200 - storedIds.size);
    expect(await checkLedger(store.db)).toEqual([]);
  });
});

// MCP servers rank by their best tool too: each instance reads the tools' postings into memory once per catalog
// (store/postgres/bm25.ts), and must read them again when another instance replaced the catalog.
describe.skipIf(BACKEND !== 'postgres')('two instances on one PostgreSQL database: tool search', SLOW, () => {
  const request = 'add urls to a url category';
  const small = loadCatalog(SMALL_CATALOG);
  const github = small.find((s) => s.id === 'github-mcp')!;
  const mcp = (id: string, name: string, tools: Skill['tools']): Skill => ({
    ...github,
    id,
    name,
    category: 'monitoring',
    tools,
  });
  // The one tool that does the job, among hundreds on Zscaler, or beside another on Netguard.
  const job = { name: 'zia_add_urls_to_category', description: 'Adds URLs to a URL category' };
  const fillers = Array.from({ length: 600 }, (_, i) => ({
    name: `zms_list_tag_namespace_${i}`,
    description: `Lists the tags of namespace ${i} with their values and owners`,
  }));
  const rules = [{ name: 'list_rules', description: 'Lists the firewall rules' }];
  type Holder = 'zscaler' | 'netguard';
  const catalog = (holder: Holder) =>
    JSON.stringify([
      ...small,
      mcp('zscaler', 'Zscaler', holder === 'zscaler' ? [...fillers, job] : fillers),
      mcp('netguard', 'Netguard', holder === 'netguard' ? [...rules, job] : rules),
    ]);

  let databaseUrl: string;
  let dir: string;
  let catalogPath: string;
  /** A and B, each a cluster of one so that A restarts alone. */
  let a: Cluster | undefined;
  let b: Cluster;
  /** The test's own connections to the same database, for telling the instances of a change. */
  let store: Store;
  // With the sentence model: servers rank by their tools only in fused search. The test asks often. One search worker
  // each: every start loads the model into each worker, twice when it computes vectors, and a second adds nothing here.
  const start = () =>
    startCluster({
      n: 1,
      databaseUrl,
      env: {
        AXLE_CATALOG: catalogPath,
        AXLE_SEMANTIC_SEARCH: 'on',
        AXLE_SEARCH_WORKERS: '1',
        AXLE_ANONYMOUS_DISCOVER_PER_MINUTE: '100000',
      },
    });

  beforeAll(async () => {
    databaseUrl = (await backendEnv('migrated')).AXLE_DATABASE_URL!;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'axle-cluster-catalog-'));
    catalogPath = path.join(dir, 'catalog.json');
    fs.writeFileSync(catalogPath, catalog('zscaler'));
    [a, b] = await Promise.all([start(), start()]);
    store = await openStore({ databaseUrl, databasePool: 4, dataDir: os.tmpdir(), now: Date.now });
  }, 180_000);
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await store?.db.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** An instance's answer to the request: its search mode and each result's id and relevance, best first. */
  const answer = async (c: Cluster) => {
    const res = await fetch(`${c.url}/discover`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: request }),
    });
    const body = await res.text();
    expect(res.status, body).toBe(200);
    const { search_mode, results } = JSON.parse(body) as {
      search_mode: string;
      results: Array<{ id: string; relevance: number }>;
    };
    return { search_mode, results: results.map((r) => [r.id, r.relevance]) };
  };
  /** An answer's search mode and first result. */
  const first = (x: Awaited<ReturnType<typeof answer>>) => `${x.search_mode} ${x.results[0]?.[0]}`;
  /** Loading the model, and vectors computed in the background, take seconds. */
  const WITHIN_60_S = { timeout: 60_000, interval: 100 };

  /**
   * The operator moves the tool: A restarts on the changed catalog file and imports it. B, told as the catalog
   * commands tell running servers (NOTIFY), finds it imported: it must forget the tools it kept and answer as A,
   * started on this catalog, does (exactly: the server that lost the tool keeps no rank by it).
   */
  async function moveTo(holder: Holder) {
    fs.writeFileSync(catalogPath, catalog(holder));
    await a?.stop();
    a = await start();
    await vi.waitFor(async () => expect(first(await answer(a!))).toBe(`fused ${holder}`), WITHIN_60_S);
    await store.changes.publish('catalog');
    await vi.waitFor(async () => expect(await answer(b)).toEqual(await answer(a!)), WITHIN_60_S);
    expect(first(await answer(b))).toBe(`fused ${holder}`);
  }

  it('B, its tools in memory, follows the catalog A imported without a restart, there and back', async () => {
    // B answers first, fused: the tools are read into its memory.
    await vi.waitFor(async () => expect(first(await answer(b))).toBe('fused zscaler'), WITHIN_60_S);
    await moveTo('netguard');
    await moveTo('zscaler');
  }, 180_000);
});
