// Where a 20,000-skill fused server's resident memory goes, and when its peak comes:
//   node bench/rss-timeline.js [packages/server/dist/main.js] [name] [env as JSON]
// Starts the build on the generated catalog (seeded vectors, as bench/search-cost.js; the data dir is kept in
// the system's temp dir under `name` and reused), samples VmRSS/VmHWM every 100 ms, prints /proc/<pid>/smaps
// grouped (anonymous, malloc's [heap], files; regions over 4 MB listed) when `semantic: ready` and after 10 s of
// fused POST /discover warm-up and 8 s measured (4 connections), and a timeline a second apart. The env JSON
// (e.g. '{"MALLOC_ARENA_MAX":"2"}') is added to the server's environment.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadCatalog } from '../packages/server/dist/catalog/load.js';
import { generateCatalog, loadQueries } from './lib/generate.js';
import { rotatingQueryLoad } from './lib/load.js';
import { prepareSeeded } from './lib/seeded-catalog.js';
import { MAIN, rssMb, serverProcess, startServer, waitSemantic } from './lib/server.js';
const tmp = path.join(os.tmpdir(), 'axle-rss-timeline');
const main = process.argv[2] || MAIN;
const name = process.argv[3] || 'x';
fs.mkdirSync(tmp, { recursive: true });
const bundled = loadCatalog();
const catalogFile = path.join(tmp, 'catalog.json');
if (!fs.existsSync(catalogFile)) fs.writeFileSync(catalogFile, JSON.stringify(generateCatalog(bundled, 20000)));
const { queries: labelled } = JSON.parse(fs.readFileSync(new URL('./eval/queries.json', import.meta.url), 'utf8'));
const queries = loadQueries(
  labelled.map((q) => q.query),
  bundled,
  2000,
);
const dataDir = path.join(tmp, name);
if (!fs.existsSync(dataDir)) await prepareSeeded(dataDir, main, catalogFile);
const st = (pid) => {
  const { rss, peak } = rssMb(pid);
  return `rss ${rss.toFixed(0)} hwm ${peak.toFixed(0)}`;
};
function smaps(pid) {
  const txt = fs.readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n');
  const regs = [];
  let cur;
  for (const l of txt) {
    if (/^[0-9a-f]+-[0-9a-f]+ /.test(l)) {
      cur = { h: l.split(/\s+/).slice(5).join(' ') || '[anon]', rss: 0 };
      regs.push(cur);
    } else if (l.startsWith('Rss:')) cur.rss = Number(l.split(/\s+/)[1]) / 1024;
  }
  const by = {};
  for (const r of regs) {
    const k = r.h.includes('/')
      ? r.h.endsWith('.node') || r.h.includes('node_modules')
        ? 'native-mods'
        : 'files'
      : r.h;
    by[k] = (by[k] || 0) + r.rss;
  }
  const big = regs
    .filter((r) => r.rss > 4)
    .sort((a, b) => b.rss - a.rss)
    .map((r) => `${r.h}:${r.rss.toFixed(0)}`)
    .join(' ');
  return `${JSON.stringify(Object.fromEntries(Object.entries(by).map(([k, v]) => [k, Math.round(v)])))}\n   big: ${big}`;
}
const t0 = performance.now();
const server = await startServer({
  dataDir,
  env: { AXLE_CATALOG: catalogFile, ...JSON.parse(process.argv[4] || '{}') },
  main,
  timeoutMs: 120000,
});
const samples = [];
const iv = setInterval(() => {
  try {
    samples.push(`${((performance.now() - t0) / 1000).toFixed(1)}:${st(server.pid)}`);
  } catch {}
}, 100);
const ready = await waitSemantic(server.url, 300000);
console.log(
  name,
  process.argv[4] || '{}',
  'ready',
  ready.state,
  ((performance.now() - t0) / 1000).toFixed(1),
  's',
  st(server.pid),
);
console.log('  smaps at ready', smaps(serverProcess(server.pid)));
await rotatingQueryLoad(server.url, '/discover', queries.slice(1000), { limit: 10, seconds: 10, connections: 4 });
const r = await rotatingQueryLoad(server.url, '/discover', queries, { limit: 10, seconds: 8, connections: 4 });
console.log(name, 'after load', r.rps.toFixed(1), 'req/s', st(server.pid));
console.log('  smaps after load', smaps(serverProcess(server.pid)));
clearInterval(iv);
// coarse timeline: every ~1 s
console.log('  timeline', samples.filter((_, i) => i % 10 === 0).join(' | '));
await server.stop();
