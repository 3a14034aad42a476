// The blend's ranked ids at 100,000 learnings for the bench's queries, written as JSON lines to the
// file given: two builds' files compare whether a change moved any ranking at scale (the labelled
// eval holds only 300 learnings). `node bench/knowledge-ranks.js <out> [n]` after `npx tsc -b`.
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
import { createLearningsSearch } from '../packages/server/dist/store/learnings-search.js';
import { knowledgeQueries, largeStore } from './lib/knowledge-bench.js';
import { ROOT } from './lib/server.js';

const [out, n] = process.argv.slice(2);
const { dir } = await largeStore(path.join(ROOT, 'node_modules/.cache/axle-bench-learnings'));
const db = await Database.open(path.join(dir, 'axle.db'));
const client = new EmbedderClient();
await client.init();
const model = { state: () => 'ready', embed: (t) => client.embed(t), queryVector: (q) => client.queryVector(q) };
const vectors = new LearningVectors(db, model, createLogger('warn'), systemClock);
await vectors.sync(true);
const knowledge = createKnowledgeService({
  db,
  learningsSearch: createLearningsSearch(db, () => systemClock.now()),
  clock: systemClock,
  writeLimits: createAccountWriteLimiter(createRateLimiter({ db, clock: systemClock })),
  vectors,
});
const lines = [];
for (const query of knowledgeQueries().slice(0, Number(n ?? 400)))
  for (const mode of ['blend', 'semantic', 'lexical'])
    lines.push(JSON.stringify({ query, mode, ids: await knowledge.rank(query, {}, 15, mode) }));
fs.writeFileSync(out, `${lines.join('\n')}\n`);
await client.close();
await db.close();
