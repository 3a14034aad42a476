// POST /knowledge at 100,000 learnings against fused POST /discover over the bundled catalog, on one
// server, phases interleaved (D K K D ...) so the machine's other load falls on both alike: throughput,
// p99 and server CPU a request (all threads, and the event loop) of each. The ratio of CPU a request is
// what bounds the ratio of throughputs when both are CPU-bound on the same cores.
//
//   node bench/knowledge-vs-discover.js [rounds]
import fs from 'node:fs';
import path from 'node:path';
import { prng } from './lib/generate.js';
import {
  knowledgeLoad,
  knowledgeQueries,
  largeStore,
  makeKeys,
  roundQueries,
  SEARCH_KEYS,
} from './lib/knowledge-bench.js';
import { rotatingQueryLoad } from './lib/load.js';
import { cpuSeconds, ROOT, startServer, waitSemantic } from './lib/server.js';

const ROUNDS = Number(process.argv[2] ?? 3);
const WARMUP_S = 20;
const PHASE_S = 8;

function discoverLoad(url, queries, seconds) {
  return rotatingQueryLoad(url, '/discover', queries, { limit: 10, seconds, connections: 4 });
}

const labelled = JSON.parse(fs.readFileSync(new URL('./eval/queries.json', import.meta.url), 'utf8')).queries.map(
  (q) => q.query,
);
const rand = prng(11);
const FILLER = [
  'fast',
  'free',
  'simple',
  'hosted',
  'open source',
  'for agents',
  'with auth',
  'in python',
  'via api',
  'cheap',
];
// More distinct queries than the workers' query-vector caches hold.
const discoverQueries = Array.from(
  { length: 3000 },
  () =>
    `${labelled[Math.floor(rand() * labelled.length)]} ${FILLER[Math.floor(rand() * FILLER.length)]} ${Math.floor(rand() * 1000)}`,
);
const kQueries = knowledgeQueries();

const { dir } = await largeStore(path.join(ROOT, 'node_modules/.cache/axle-bench-learnings'));
const keys = await makeKeys(dir, SEARCH_KEYS);
const server = await startServer({ dataDir: dir, env: { AXLE_SEMANTIC_SEARCH: 'on' }, timeoutMs: 120_000 });
try {
  const state = (await waitSemantic(server.url, 120_000)).state;
  if (state !== 'ready') throw new Error(`semantic search ${state}`);
  await discoverLoad(server.url, discoverQueries.slice(1500), WARMUP_S);
  await knowledgeLoad(server.url, kQueries.slice(kQueries.length / 2), WARMUP_S, keys);
  const runs = { discover: [], knowledge: [] };
  const load = {
    discover: (s) => discoverLoad(server.url, discoverQueries.slice(0, 1500), s),
    knowledge: (s, round) => knowledgeLoad(server.url, roundQueries(kQueries, round, ROUNDS), s, keys),
  };
  for (let round = 0; round < ROUNDS; round++)
    for (const name of round % 2 === 0 ? ['discover', 'knowledge'] : ['knowledge', 'discover']) {
      const cpu = cpuSeconds(server.pid);
      const loop = cpuSeconds(server.pid, { mainThread: true });
      const r = await load[name](PHASE_S, round);
      r.cpuMs = ((cpuSeconds(server.pid) - cpu) * 1000) / r.total;
      r.loopMs = ((cpuSeconds(server.pid, { mainThread: true }) - loop) * 1000) / r.total;
      runs[name].push(r);
      console.log(
        `round ${round + 1} ${name}: ${r.rps.toFixed(1)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms, ${r.bad} errors; server CPU ` +
          `${r.cpuMs.toFixed(1)} ms a request (${r.loopMs.toFixed(1)} ms on the event loop)`,
      );
    }
  const ratios = runs.knowledge.map((k, i) => k.rps / runs.discover[i].rps);
  const cpuRatios = runs.knowledge.map((k, i) => runs.discover[i].cpuMs / k.cpuMs);
  console.log(`knowledge/discover throughput per round: ${ratios.map((x) => x.toFixed(2)).join(', ')}`);
  console.log(`discover/knowledge CPU a request per round: ${cpuRatios.map((x) => x.toFixed(2)).join(', ')}`);
} finally {
  await server.stop();
}
