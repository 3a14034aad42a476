// `node bench/pg-cost.js [requests]`: what one fused POST /discover and one key-path unlock cost on each backend.
// One server on SQLite and one on PostgreSQL over the bundled catalog and approved learnings (BENCH_LEARNINGS,
// default 2,000, as bench:cluster), semantic search on; then `requests` of each kind (default 400), 16 at a time:
// /discover over queries.json as sent (repeated) and each made unique (distinct), and unlocks by one buyer's key
// (as bench:cluster). Per request: the server's CPU (/proc), PostgreSQL's own CPU (its backends serving the
// server's database, from pg_stat_activity), messages sent (round trips: one or more statements each, counted in the
// server process by bench/lib/count-statements.js), and RSS after each kind. BENCH_STATEMENTS=1 lists the messages
// sent most.
// Take the bench lock for the CPU figures.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { findOrCreateAccount } from '../packages/server/dist/services/accounts.js';
import { createKey } from '../packages/server/dist/services/api-keys.js';
import { creditsStore } from '../packages/server/dist/store/credits.js';
import { openStore } from '../packages/server/dist/store/open.js';
import { insertApproved, waitLearningVectors } from './lib/learnings.js';
import { benchPostgres, POSTGRES_MISSING_BENCH } from './lib/postgres.js';
import { cpuSeconds, rssMb, serverProcess, startServer, waitSemantic } from './lib/server.js';

const REQUESTS = Number(process.argv[2] ?? 400);
const LEARNINGS = Number(process.env.BENCH_LEARNINGS ?? 2000);
const CONCURRENCY = 16;
const COUNTER = fileURLToPath(new URL('./lib/count-statements.js', import.meta.url));

const { learnings } = JSON.parse(fs.readFileSync(new URL('./knowledge/learnings.json', import.meta.url), 'utf8'));
const { queries } = JSON.parse(fs.readFileSync(new URL('./eval/queries.json', import.meta.url), 'utf8'));

/** CPU seconds of the PostgreSQL backends connected to `database` (each backend's /proc/<pid>/stat). */
async function backendCpu(admin, database) {
  const { rows } = await admin.query('SELECT pid FROM pg_stat_activity WHERE datname = $1', [database]);
  let s = 0;
  for (const { pid } of rows) {
    try {
      const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      s += (Number(fields[11]) + Number(fields[12])) / 100;
    } catch {
      // The backend ended between the two reads.
    }
  }
  return { s, pids: new Set(rows.map((r) => r.pid)) };
}

const total = (counts) => Object.values(counts).reduce((a, b) => a + b, 0);
const readCounts = (file) => (fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : {});
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Sends `requests` ([path, init]) to `url`, CONCURRENCY at a time; each must answer 200. */
async function run(url, requests) {
  let next = 0;
  const worker = async () => {
    while (next < requests.length) {
      const [path, init] = requests[next++];
      const res = await fetch(`${url}${path}`, init);
      if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
      await res.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

const discover = (query) => [
  '/discover',
  { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, limit: 10 }) },
];

const pgServer = await benchPostgres();
if (!pgServer) {
  console.log(POSTGRES_MISSING_BENCH);
  process.exit(0);
}
const admin = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/test' });
await admin.connect();
const dirs = [];
const servers = [];
try {
  for (const backend of ['SQLite', 'PostgreSQL']) {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'axle-pg-cost-'));
    dirs.push(dataDir);
    const databaseUrl = backend === 'PostgreSQL' ? await pgServer.fresh() : undefined;
    const store = await openStore({ dataDir, databaseUrl, now: Date.now });
    const rows = Array.from({ length: LEARNINGS }, (_, i) => {
      const l = learnings[i % learnings.length];
      return { ...l, id: `lrn_bench${i}`, title: `${l.title} (${i})`, body: `${l.body} Variant ${i}.` };
    });
    await insertApproved(store.db, rows, Date.now());
    const key = await store.db.tx(async (q) => {
      const account = await findOrCreateAccount(q, 'buyer@example.com', Date.now());
      await creditsStore.add(q, account.id, 100_000, 0, 100_000 * 100_000, Date.now());
      return (await createKey(q, account.id, {}, Date.now())).api_key;
    });
    const counts = path.join(dataDir, 'statements.json');
    const env = {
      AXLE_SEMANTIC_SEARCH: 'on',
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${COUNTER}`.trim(),
      AXLE_STATEMENT_COUNTS: counts,
      ...(databaseUrl ? { AXLE_DATABASE_URL: databaseUrl } : {}),
    };
    const server = await startServer({ dataDir, env, timeoutMs: 120_000 });
    servers.push({ backend, server, counts, key, database: databaseUrl && new URL(databaseUrl).pathname.slice(1) });
    await waitSemantic(server.url, 120_000);
    if (!(await waitLearningVectors(store, 600_000))) throw new Error(`${backend}: learning vectors not computed`);
    await store.db.close();
  }
  const texts = queries.map((q) => q.query);
  // Each kind's `n` requests from the `from`-th on (the first 32 warm the server: catalog read, statements prepared).
  const kinds = {
    repeated: (_, from, n) => Array.from({ length: n }, (_, i) => discover(texts[(from + i) % texts.length])),
    distinct: (_, from, n) =>
      Array.from({ length: n }, (_, i) => discover(`${texts[(from + i) % texts.length]} ${from + i}x`)),
    unlock: (s, from, n) =>
      Array.from({ length: n }, (_, i) => [
        `/knowledge/lrn_bench${(from + i) % LEARNINGS}`,
        { headers: { 'x-api-key': s.key } },
      ]),
  };
  console.log(
    `pg-cost: ${REQUESTS} requests per kind, ${CONCURRENCY} at a time; ${LEARNINGS} learnings; load ${os.loadavg()[0].toFixed(1)}`,
  );
  for (const [kind, requests] of Object.entries(kinds)) {
    for (const s of servers) {
      await run(s.server.url, requests(s, 0, 32));
      const list = requests(s, 32, REQUESTS);
      await sleep(500);
      const pid = serverProcess(s.server.pid);
      const before = { cpu: cpuSeconds(pid), n: total(readCounts(s.counts)) };
      const db0 = s.database ? await backendCpu(admin, s.database) : undefined;
      const t0 = performance.now();
      await run(s.server.url, list);
      const wall = performance.now() - t0;
      await sleep(500);
      const db1 = s.database ? await backendCpu(admin, s.database) : undefined;
      const after = { cpu: cpuSeconds(pid), n: total(readCounts(s.counts)) };
      const per = (x) => ((x * 1000) / list.length).toFixed(2);
      console.log(
        `${kind.padEnd(8)} ${s.backend.padEnd(10)} ${(list.length / (wall / 1000)).toFixed(0).padStart(4)} req/s  server CPU ${per(after.cpu - before.cpu)} ms` +
          (db0 ? `  PostgreSQL CPU ${per(db1.s - db0.s)} ms` : '') +
          (s.database ? `  round trips ${((after.n - before.n) / list.length).toFixed(2)}` : '') +
          `  RSS ${rssMb(s.server.pid).rss.toFixed(0)} MB`,
      );
    }
  }
  if (process.env.BENCH_STATEMENTS) {
    const pgs = servers.find((s) => s.database);
    const counts = Object.entries(readCounts(pgs.counts)).sort((a, b) => b[1] - a[1]);
    for (const [text, n] of counts.slice(0, 30))
      console.log(String(n).padStart(7), text.replace(/\s+/g, ' ').slice(0, 150));
  }
} finally {
  for (const s of servers) await s.server.stop();
  await admin.end();
  await pgServer.close();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
}
