// Where a POST /knowledge search spends its time at 100,000 learnings, in-process and one query at a
// time: the service's store calls and the query's embedding are wrapped with timers, the rest of the
// search (scan of the vectors, blending) is what remains of the total. `node bench/knowledge-profile.js [n]`
// after `npx tsc -b`; the store is the bench's cached one (built on first use).
import fs from 'node:fs';
import path from 'node:path';
import { systemClock } from '../packages/server/dist/clock.js';
import { createLogger } from '../packages/server/dist/logger.js';
import { EmbedderClient } from '../packages/server/dist/search/embedder.js';
import { LearningVectors } from '../packages/server/dist/search/learning-vectors.js';
import { createAccountWriteLimiter } from '../packages/server/dist/services/account-write-limits.js';
import { createKnowledgeService } from '../packages/server/dist/services/knowledge.js';
import { createRateLimiter } from '../packages/server/dist/services/rate-limit.js';
import { Database } from '../packages/server/dist/store/db.js';
import { learningsStore } from '../packages/server/dist/store/learnings.js';
import { createLearningsSearch } from '../packages/server/dist/store/learnings-search.js';
import { ROOT } from './lib/server.js';
import { knowledgeQueries, largeStore } from './lib/knowledge-bench.js';

/** CPU seconds of each thread of this process, by thread id, with its name (Linux /proc). */
function threadCpu() {
  const out = new Map();
  for (const tid of fs.readdirSync('/proc/self/task')) {
    try {
      const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(tid, {
        name: tid === String(process.pid) ? 'event loop' : name,
        s: (Number(f[11]) + Number(f[12])) / 100,
      });
    } catch {}
  }
  return out;
}

const N = Number(process.argv[2] ?? 300);
const { dir } = await largeStore(path.join(ROOT, 'node_modules/.cache/axle-bench-learnings'));
const db = await Database.open(path.join(dir, 'axle.db'));
const spent = new Map();
const timed = (name, fn) =>
  async function (...args) {
    const t = performance.now();
    try {
      return await fn.apply(this, args);
    } finally {
      spent.set(name, (spent.get(name) ?? 0) + performance.now() - t);
    }
  };
for (const name of ['countVisible', 'idsMatching', 'visibleByIds', 'demand', 'recordImpressions', 'reprice'])
  learningsStore[name] = timed(name, learningsStore[name]);

const client = new EmbedderClient();
await client.init();
const model = {
  state: () => 'ready',
  embed: (t) => client.embed(t),
  queryVector: timed('queryVector (worker)', (q) => client.queryVector(q)),
};
const vectors = new LearningVectors(db, model, createLogger('warn'), systemClock);
vectors.search = timed('vectors.search (incl. queryVector)', vectors.search);
await vectors.sync(true);
const learningsSearch = createLearningsSearch(db, () => systemClock.now());
learningsSearch.lexical = timed('learningsSearch.lexical', learningsSearch.lexical);
const knowledge = createKnowledgeService({
  db,
  learningsSearch,
  clock: systemClock,
  writeLimits: createAccountWriteLimiter(createRateLimiter({ db, clock: systemClock })),
  vectors,
});

const queries = knowledgeQueries();
// Warm-up: JIT, statement caches, df cache, the index build.
for (const query of queries.slice(queries.length / 2, queries.length / 2 + 100))
  await knowledge.search({ query, limit: 5 }, null);
const threads0 = threadCpu();
spent.clear();
const cpu0 = process.cpuUsage();
const t0 = performance.now();
for (const query of queries.slice(0, N)) await knowledge.search({ query, limit: 5 }, null);
const wall = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
console.log(
  `${N} searches one at a time: ${(wall / N).toFixed(2)} ms wall a search, process CPU ${((cpu.user + cpu.system) / 1000 / N).toFixed(2)} ms a search`,
);
const threads1 = threadCpu();
const byName = new Map();
for (const [tid, t] of threads1)
  byName.set(`${t.name}#${tid}`, (byName.get(t.name) ?? 0) + t.s - (threads0.get(tid)?.s ?? 0));
console.log(
  `  CPU a search by thread (the embedding worker, the SQLite pool, V8's): ${[...byName]
    .sort((a, b) => b[1] - a[1])
    .filter(([, s]) => (s * 1000) / N >= 0.2)
    .map(([n, s]) => `${n} ${((s * 1000) / N).toFixed(2)} ms`)
    .join(', ')}`,
);
for (const [name, ms] of [...spent].sort((a, b) => b[1] - a[1]))
  console.log(`  ${name.padEnd(36)} ${(ms / N).toFixed(2)} ms`);
await client.close();
await db.close();
