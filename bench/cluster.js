// `npm run bench:cluster`: the built server on PostgreSQL against the same server on SQLite, in one run
// (ratios, so the machine's speed cancels out): fused POST /discover, key-path unlocks, POST /learn, p99
// latency and RSS; then three instances on one PostgreSQL database behind the round-robin proxy of
// test/support/cluster.js against one. Needs a PostgreSQL server (bench/lib/postgres.js).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { findOrCreateAccount } from '../packages/server/dist/services/accounts.js';
import { createKey } from '../packages/server/dist/services/api-keys.js';
import { creditsStore } from '../packages/server/dist/store/credits.js';
import { openStore } from '../packages/server/dist/store/open.js';
import { startCluster } from '../test/support/cluster.js';
import { insertApproved, waitLearningVectors } from './lib/learnings.js';
import { benchPostgres, POSTGRES_MISSING_BENCH } from './lib/postgres.js';
import { rssMb, startServer, waitSemantic } from './lib/server.js';

const PHASE_S = Number(process.env.BENCH_PHASE_S ?? 5);
const CONNECTIONS = 16;
const ACCOUNTS = 200;
const LEARNINGS = 2000;
const TARGETS = { discover: 0.8, unlock: 0.6, learn: 0.6, p99: 2, rssMb: 50 };

const { learnings } = JSON.parse(fs.readFileSync(new URL('./knowledge/learnings.json', import.meta.url), 'utf8'));
const { queries } = JSON.parse(fs.readFileSync(new URL('./eval/queries.json', import.meta.url), 'utf8'));

/** Accounts with keys and credits, and approved learnings, written straight into the store. */
async function seed(store) {
  const now = Date.now();
  const keys = [];
  await store.db.tx(async (q) => {
    for (let i = 0; i < ACCOUNTS; i++) {
      const account = await findOrCreateAccount(q, `bench-${i}@example.com`, now);
      keys.push((await createKey(q, account.id, {}, now)).api_key);
      await creditsStore.add(q, account.id, 100_000, 0, 100_000 * 100_000, now);
    }
  });
  const rows = Array.from({ length: LEARNINGS }, (_, i) => {
    const l = learnings[i % learnings.length];
    return { ...l, id: `lrn_bench${i}`, title: `${l.title} (${i})`, body: `${l.body} Variant ${i}.` };
  });
  await insertApproved(store.db, rows, now);
  return { keys, ids: rows.map((r) => r.id) };
}

const json = (body) => JSON.stringify(body);

/** Words drawn at random, so submissions are neither duplicates nor near-duplicates of each other. */
const VOCABULARY = learnings.flatMap((l) => l.body.split(/\W+/)).filter((w) => w.length > 3);
const words = (n) =>
  Array.from({ length: n }, () => VOCABULARY[Math.floor(Math.random() * VOCABULARY.length)]).join(' ');

function learnBody(n) {
  const l = learnings[n % learnings.length];
  return json({
    title: `${words(6)} (bench ${n})`,
    body: `When ${words(12)}, the fix was ${words(30)}.`,
    category: l.category,
    tags: l.tags,
    task_context: `bench case ${n}`,
    outcome: 'workaround',
  });
}

/** One autocannon phase; `requests` rotate. */
async function phase(url, requests) {
  let i = 0;
  const r = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: PHASE_S,
    requests: [{ setupRequest: (req) => ({ ...req, ...requests(i++) }) }],
  });
  return { rps: r.requests.average, p99: r.latency.p99, errors: r.non2xx + r.errors };
}

/** The three phases: each, given a server's seeded data, the i-th request. */
const PHASES = {
  discover: () => (i) => ({
    method: 'POST',
    path: '/discover',
    headers: { 'content-type': 'application/json' },
    body: json({ query: queries[i % queries.length].query, limit: 10 }),
  }),
  unlock:
    ({ keys, ids }) =>
    (i) => ({
      method: 'GET',
      path: `/knowledge/${ids[i % ids.length]}`,
      headers: { 'x-api-key': keys[Math.floor(i / ids.length) % keys.length] },
    }),
  // 20 a minute per account: submissions rotate over every account.
  learn:
    ({ keys }) =>
    (i) => ({
      method: 'POST',
      path: '/learn',
      headers: { 'content-type': 'application/json', 'x-api-key': keys[i % keys.length] },
      body: learnBody(i),
    }),
};

async function measure(label, server, data) {
  const m = { label };
  for (const [name, requests] of Object.entries(PHASES)) m[name] = await phase(server.url, requests(data));
  return { ...m, memory: server.pid ? rssMb(server.pid) : undefined };
}

const f0 = (x) => x.toFixed(0);
const f2 = (x) => x.toFixed(2);
function print(m) {
  const row = (name, p) =>
    `  ${name.padEnd(18)} ${f0(p.rps).padStart(6)} req/s  p99 ${f0(p.p99).padStart(5)} ms  non-2xx ${p.errors}`;
  console.log(`${m.label}${m.memory ? ` (RSS ${f0(m.memory.rss)} MB)` : ''}`);
  console.log(row('POST /discover', m.discover));
  console.log(row('unlock (key)', m.unlock));
  console.log(row('POST /learn', m.learn));
}

const pg = await benchPostgres();
if (!pg) {
  console.log(POSTGRES_MISSING_BENCH);
  process.exit(0);
}
const dirs = [];
const tmp = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'axle-bench-cluster-'));
  dirs.push(d);
  return d;
};
try {
  console.log(
    `bench:cluster: autocannon, ${CONNECTIONS} connections, ${PHASE_S} s per phase; ${ACCOUNTS} accounts, ${LEARNINGS} learnings; semantic search on\n`,
  );
  // Both servers run side by side and each phase alternates between them (SQLite, then PostgreSQL), so
  // load from elsewhere on the machine falls on both alike.
  const started = [];
  try {
    for (const backend of ['SQLite', 'PostgreSQL']) {
      const dataDir = tmp();
      const databaseUrl = backend === 'PostgreSQL' ? await pg.fresh() : undefined;
      const store = await openStore({ dataDir, databaseUrl, now: Date.now });
      const data = await seed(store);
      const env = { AXLE_SEMANTIC_SEARCH: 'on', ...(databaseUrl ? { AXLE_DATABASE_URL: databaseUrl } : {}) };
      const server = await startServer({ dataDir, env, timeoutMs: 120_000 });
      started.push({ server, data, m: { label: `one instance on ${backend}` } });
      await waitSemantic(server.url, 120_000);
      // The seeded learnings' vectors are computed in the background first: phases measure the settled server.
      if (!(await waitLearningVectors(store, 600_000)))
        throw new Error(`${backend}: learning vectors not computed in 600 s`);
      await store.db.close();
    }
    for (const [name, requests] of Object.entries(PHASES))
      for (const s of started) s.m[name] = await phase(s.server.url, requests(s.data));
    for (const s of started) {
      s.m.memory = rssMb(s.server.pid);
      print(s.m);
    }
  } finally {
    for (const s of started) await s.server.stop();
  }
  const results = started.map((s) => s.m);
  const [sq, pq] = results;
  const checks = [
    ['fused /discover', pq.discover.rps / sq.discover.rps, TARGETS.discover],
    ['key-path unlock', pq.unlock.rps / sq.unlock.rps, TARGETS.unlock],
    ['POST /learn', pq.learn.rps / sq.learn.rps, TARGETS.learn],
  ].map(([name, ratio, target]) => [
    `${name}: PostgreSQL ${f2(ratio)}x SQLite (target >= ${target}x)`,
    ratio >= target,
  ]);
  for (const k of ['discover', 'unlock', 'learn']) {
    const ratio = pq[k].p99 / sq[k].p99;
    checks.push([`${k} p99: PostgreSQL ${f2(ratio)}x SQLite (target <= ${TARGETS.p99}x)`, ratio <= TARGETS.p99]);
  }
  const extra = pq.memory.rss - sq.memory.rss;
  checks.push([`RSS: PostgreSQL ${f0(extra)} MB over SQLite (target <= ${TARGETS.rssMb})`, extra <= TARGETS.rssMb]);

  // Three instances behind the proxy against one, on PostgreSQL (lexical search: three models on two cores
  // would measure the model, not the store).
  const clusterUrl = await pg.fresh();
  const store = await openStore({ dataDir: tmp(), databaseUrl: clusterUrl, now: Date.now });
  const data = await seed(store);
  await store.db.close();
  const scale = [];
  for (const n of [1, 3]) {
    const cluster = await startCluster({ n, databaseUrl: clusterUrl });
    try {
      const m = await measure(`${n} instance(s) on one PostgreSQL behind the proxy`, { url: cluster.url }, data);
      print(m);
      scale.push(m);
    } finally {
      await cluster.stop();
    }
  }
  console.log(
    `3 instances / 1: unlock ${f2(scale[1].unlock.rps / scale[0].unlock.rps)}x, POST /learn ${f2(scale[1].learn.rps / scale[0].learn.rps)}x, /discover ${f2(scale[1].discover.rps / scale[0].discover.rps)}x (${os.availableParallelism()} cores shared by all)\n`,
  );
  for (const [label, ok] of checks) console.log(`${ok ? 'PASS' : 'FAIL'}  ${label}`);
  process.exitCode = checks.every(([, ok]) => ok) ? 0 : 1;
} finally {
  await pg.close();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
}
