// What the catalog and ranking changes cost, against a baseline build in the same run:
//   node bench/search-cost.js <baseline packages/server/dist/main.js>
// 1. Fused POST /discover over the generated 20,000-skill catalog (bench/lib/generate.js from the bundled one),
//    this build and the baseline in turn (phases interleaved, after a warm-up each): requests/s and p99, and each
//    server's peak RSS. The generated skills' vectors would take many minutes of CPU to
//    compute, so every data dir gets seeded random unit vectors under the text hashes its own build expects:
//    the scan, fusion and rerank cost the same whatever the vectors hold (the rankings are meaningless here).
// 2. The first start on the bundled catalog (an empty data dir) until GET /health says `semantic: ready`.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadCatalog } from '../packages/server/dist/catalog/load.js';
import { generateCatalog, loadQueries } from './lib/generate.js';
import { rotatingQueryLoad } from './lib/load.js';
import { prepareSeeded } from './lib/seeded-catalog.js';
import { MAIN, rssMb, startServer, waitSemantic } from './lib/server.js';

const baselineMain = process.argv[2];
if (!baselineMain || !fs.existsSync(baselineMain)) {
  console.error('usage: node bench/search-cost.js <baseline packages/server/dist/main.js>');
  process.exit(2);
}
const LARGE = 20_000;
const PHASE_S = 8;
const WARMUP_S = 10;
const ROUNDS = 2;
const load = { limit: 10, seconds: PHASE_S, connections: 4 };

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'axle-search-cost-'));
const bundled = loadCatalog();
const catalogFile = path.join(tmp, 'catalog.json');
fs.writeFileSync(catalogFile, JSON.stringify(generateCatalog(bundled, LARGE)));
const { queries: labelled } = JSON.parse(fs.readFileSync(new URL('./eval/queries.json', import.meta.url), 'utf8'));
const queries = loadQueries(
  labelled.map((q) => q.query),
  bundled,
  2_000,
);

async function start(name, main, dataDir) {
  const server = await startServer({ dataDir, env: { AXLE_CATALOG: catalogFile }, main, timeoutMs: 120_000 });
  const ready = await waitSemantic(server.url, 300_000);
  if (ready.state !== 'ready') throw new Error(`${name}: semantic ${ready.state}`);
  // VmHWM: the kernel's record of the process's peak RSS.
  return { name, ...server, peak: () => rssMb(server.pid).peak };
}

const builds = [
  ['baseline', baselineMain],
  ['this build', MAIN],
];
const dirs = [];
for (const [name, main] of builds)
  dirs.push(await prepareSeeded(path.join(tmp, name.replace(' ', '-')), main, catalogFile));
const servers = [];
for (const [i, [name, main]] of builds.entries()) servers.push(await start(name, main, dirs[i]));
try {
  for (const s of servers)
    await rotatingQueryLoad(s.url, '/discover', queries.slice(1000), { ...load, seconds: WARMUP_S });
  const runs = new Map(servers.map((s) => [s.name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const s of servers) runs.get(s.name).push(await rotatingQueryLoad(s.url, '/discover', queries, load));
  }
  console.log(`fused POST /discover over ${LARGE} skills, ${ROUNDS} interleaved phases of ${PHASE_S} s each:`);
  const rps = {};
  for (const s of servers) {
    const peak = s.peak();
    const r = runs.get(s.name);
    rps[s.name] = r.reduce((a, x) => a + x.rps, 0) / r.length;
    console.log(
      `  ${s.name.padEnd(10)} ${rps[s.name].toFixed(1)} req/s (phases ${r.map((x) => x.rps.toFixed(1)).join(', ')}), p99 ${Math.max(...r.map((x) => x.p99))} ms, non-2xx ${r.reduce((a, x) => a + x.bad, 0)}, peak RSS ${peak.toFixed(0)} MB`,
    );
  }
  console.log(`  ratio this build / baseline: ${(rps['this build'] / rps.baseline).toFixed(3)} (target >= 0.9)`);
} finally {
  for (const s of servers) await s.stop();
}

// The first start on the bundled catalog: import, vectors from the shipped file, then `semantic: ready`.
for (const [name, main] of builds) {
  const dataDir = path.join(tmp, `${name.replace(' ', '-')}-bundled`);
  const t0 = performance.now();
  const server = await startServer({ dataDir, main, timeoutMs: 120_000 });
  const ready = await waitSemantic(server.url, 120_000);
  console.log(
    `first start on the bundled catalog, ${name}: semantic ${ready.state} after ${((performance.now() - t0) / 1000).toFixed(1)} s (target <= 10 s)`,
  );
  await server.stop();
}
fs.rmSync(tmp, { recursive: true, force: true });
