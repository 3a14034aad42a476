// Paired, interleaved A/B runs of the POST /knowledge phase at 100,000 learnings (the store of
// `npm run bench`): both builds' servers run at once on the same data dir, each is warmed up, then
// measured phases alternate A, B, B, A, ... so load from elsewhere on the machine falls on both alike.
//
//   node bench/knowledge-ab.js <root A> <root B> [rounds]
//
// A root is a checkout whose packages/server/dist is built (a copy of the tree before a change, say).
import path from 'node:path';
import {
  knowledgeLoad,
  knowledgeQueries,
  largeStore,
  makeKeys,
  roundQueries,
  SEARCH_KEYS,
} from './lib/knowledge-bench.js';
import { cpuSeconds, ROOT, startServer, waitSemantic } from './lib/server.js';

const [rootA, rootB, roundsArg] = process.argv.slice(2);
if (!rootA || !rootB) {
  console.error('usage: node bench/knowledge-ab.js <root A> <root B> [rounds]');
  process.exit(2);
}
const ROUNDS = Number(roundsArg ?? 4);
const WARMUP_S = 20;
const PHASE_S = 8;

const { dir } = await largeStore(path.join(ROOT, 'node_modules/.cache/axle-bench-learnings'));
const queries = knowledgeQueries();
const keys = await makeKeys(dir, SEARCH_KEYS);
const servers = {};
try {
  for (const [name, root] of [
    ['A', rootA],
    ['B', rootB],
  ]) {
    const main = path.resolve(root, 'packages/server/dist/main.js');
    const server = await startServer({ dataDir: dir, env: { AXLE_SEMANTIC_SEARCH: 'on' }, timeoutMs: 120_000, main });
    servers[name] = { server, runs: [] };
    const state = (await waitSemantic(server.url, 120_000)).state;
    if (state !== 'ready') throw new Error(`${name}: semantic search ${state}`);
  }
  for (const name of ['A', 'B'])
    await knowledgeLoad(servers[name].server.url, queries.slice(queries.length / 2), WARMUP_S, keys);
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of round % 2 === 0 ? ['A', 'B'] : ['B', 'A']) {
      const { server, runs } = servers[name];
      const cpu = cpuSeconds(server.pid);
      const loop = cpuSeconds(server.pid, { mainThread: true });
      const r = await knowledgeLoad(server.url, roundQueries(queries, round, ROUNDS), PHASE_S, keys);
      r.cpuMs = ((cpuSeconds(server.pid) - cpu) * 1000) / r.total;
      r.loopMs = ((cpuSeconds(server.pid, { mainThread: true }) - loop) * 1000) / r.total;
      runs.push(r);
      console.log(
        `round ${round + 1} ${name}: ${r.rps.toFixed(1)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms, ${r.bad} errors; server CPU ` +
          `${r.cpuMs.toFixed(1)} ms a request (${r.loopMs.toFixed(1)} ms on the event loop)`,
      );
    }
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  for (const name of ['A', 'B']) {
    const { runs } = servers[name];
    console.log(
      `${name}: median ${median(runs.map((r) => r.rps)).toFixed(1)} req/s, p99 ${median(runs.map((r) => r.p99))} ms, ` +
        `CPU ${median(runs.map((r) => r.cpuMs)).toFixed(1)} ms a request (${median(runs.map((r) => r.loopMs)).toFixed(1)} on the event loop)`,
    );
  }
  const ratios = servers.A.runs.map((a, i) => servers.B.runs[i].rps / a.rps);
  console.log(`B/A throughput per round: ${ratios.map((x) => x.toFixed(2)).join(', ')}`);
} finally {
  for (const { server } of Object.values(servers)) await server.stop();
}
