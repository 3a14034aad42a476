// `npm run eval`: scores the skill rankers against the labelled set in bench/eval/queries.json,
// in-process over the bundled catalog: the substring baseline, BM25 alone, embeddings alone and
// their reciprocal-rank fusion, all in the same run; then the learning screens on their labelled
// corpora (recall and false-positive rate), and the injection screen on the injection eval set
// (bench/eval/injection: public BIPIA attacks in Stack Overflow answers plus authored items; test half
// reported). Exits 1 when a target is missed.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadCatalog } from '../packages/server/dist/catalog/load.js';
import { systemClock } from '../packages/server/dist/clock.js';
import { createLogger } from '../packages/server/dist/logger.js';
import { createLearningsService } from '../packages/server/dist/services/learnings.js';
import { createSkillsService } from '../packages/server/dist/services/skills.js';
import { Database } from '../packages/server/dist/store/db.js';
import { migrate } from '../packages/server/dist/store/migrate.js';
import { generateCatalog } from './lib/generate.js';
import { mean, ndcgAt, score } from './lib/metrics.js';
import { knowledgeReport } from './lib/knowledge-eval.js';
import { screenReport } from './lib/screens.js';
import { injectionReport } from './lib/injection-eval.js';
import { substringRanker } from './lib/substring.js';

const TARGET_NDCG = 0.65;
const TARGET_RECALL_RATIO = 1.5;
/** Ranking depth every ranker is asked for (MRR looks this deep). */
const DEPTH = 100;
/** Size of the catalog `npm run bench` loads: the bundled skills among generated ones. */
const LARGE = 20_000;

const { queries } = JSON.parse(fs.readFileSync(new URL('./eval/queries.json', import.meta.url), 'utf8'));
const skills = loadCatalog();
const known = new Set(skills.map((s) => s.id));
const stale = queries.flatMap((q) =>
  Object.keys(q.relevant)
    .filter((id) => !known.has(id))
    .map((id) => `${q.id}:${id}`),
);
if (stale.length > 0) {
  console.error(`queries.json labels ids missing from the bundled catalog: ${stale.join(', ')}`);
  process.exit(1);
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'axle-eval-'));
const db = await Database.open(path.join(dataDir, 'axle.db'));
await migrate(db);
const started = performance.now();
const service = await createSkillsService({
  db,
  logger: createLogger('warn'),
  semanticSearch: true,
  knowledgeHints: createLearningsService({ db, clock: systemClock }),
});
const warm = await service.search.semantic.settled;
const warmMs = performance.now() - started;

try {
  const state = service.searchState().semantic;
  const rankers = [['substring', substringRanker(skills)]];
  const viaService = (mode) => async (query) =>
    (await service.search.search({ query, mode, limit: DEPTH })).results.map((r) => r.id);
  rankers.push(['lexical', viaService('lexical')]);
  if (state === 'ready') rankers.push(['semantic', viaService('semantic')], ['fused', viaService('fused')]);

  const subsets = [
    ['web API', (q) => q.intent === 'api'],
    ['MCP', (q) => q.intent === 'mcp'],
    ['paraphrase', (q) => q.paraphrase === true],
  ];
  const results = new Map();
  for (const [name, rank] of rankers) results.set(name, await score(queries, (query) => rank(query, DEPTH)));

  const count = (f) => queries.filter(f).length;
  console.log(
    `Skill-search evaluation: ${queries.length} labelled queries (${subsets.map(([n, f]) => `${count(f)} ${n}`).join(', ')}) over ${skills.length} skills`,
  );
  console.log(
    `semantic: ${state}${warm ? ` after ${(warmMs / 1000).toFixed(1)} s (vectors reused ${warm.reused}, bundled ${warm.bundled}, computed ${warm.computed})` : ''}\n`,
  );
  const pad = (s, n) => String(s).padEnd(n);
  const f3 = (x) => x.toFixed(3);
  console.log(
    `${pad('ranker', 11)}${pad('nDCG@10', 9)}${pad('Recall@5', 10)}${pad('MRR', 7)}nDCG@10 by subset (${subsets.map(([n]) => n).join(' / ')})`,
  );
  for (const [name, r] of results) {
    const bySubset = subsets.map(([, f]) =>
      f3(mean(r.per.filter((p) => f(queries.find((q) => q.id === p.id))).map((p) => p.ndcg10))),
    );
    console.log(
      `${pad(name, 11)}${pad(f3(r.ndcg10), 9)}${pad(f3(r.recall5), 10)}${pad(f3(r.mrr), 7)}${bySubset.join(' / ')}`,
    );
  }

  // The lexical ranker again with the bundled skills among generated ones (bench/lib/generate.js), the
  // size where its common-term cut-off acts. Generated skills are unlabelled, though some fit a query,
  // so the figures compare builds; they are no absolute measure.
  const large = await lexicalAtScale(queries, skills);
  console.log(
    `\nlexical over ${LARGE} skills (the bundled ones among generated): nDCG@10 ${f3(large.ndcg10)}, Recall@5 ${f3(large.recall5)}, MRR ${f3(large.mrr)}`,
  );

  const base = results.get('substring');
  const fused = results.get('fused');
  const checks = fused
    ? [
        [`fused nDCG@10 ${f3(fused.ndcg10)} >= ${TARGET_NDCG}`, fused.ndcg10 >= TARGET_NDCG],
        [
          `fused Recall@5 ${f3(fused.recall5)} = ${(fused.recall5 / base.recall5).toFixed(2)}x substring ${f3(base.recall5)} (target >= ${TARGET_RECALL_RATIO}x)`,
          fused.recall5 >= TARGET_RECALL_RATIO * base.recall5,
        ],
      ]
    : [[`fused ranking: semantic search is ${state}`, false]];
  const knowledge = await knowledgeReport(state === 'ready' ? service.search.semantic : undefined);
  console.log(`\n${knowledge.lines.join('\n')}`);
  checks.push(...knowledge.checks);
  const screens = await screenReport(state === 'ready' ? service.search.semantic : undefined);
  console.log(`\n${screens.lines.join('\n')}`);
  checks.push(...screens.checks);
  const injection = await injectionReport(state === 'ready' ? service.search.semantic : undefined);
  console.log(`\n${injection.lines.join('\n')}`);
  checks.push(...injection.checks);
  console.log('');
  for (const [label, ok] of checks) console.log(`${ok ? 'PASS' : 'FAIL'}  ${label}`);

  if (fused && process.env.EVAL_VERBOSE === '1') {
    console.log('\nper query (fused nDCG@10, then the top 5 ids):');
    for (const q of queries) {
      const top = await rankers.find(([n]) => n === 'fused')[1](q.query);
      console.log(
        `${q.id} ${f3(ndcgAt(top, q.relevant, 10))} ${q.query}\n     ${top
          .slice(0, 5)
          .map((id) => `${id}${q.relevant[id] ? `(${q.relevant[id]})` : ''}`)
          .join(' ')}`,
      );
    }
  }
  process.exitCode = checks.every(([, ok]) => ok) ? 0 : 1;
} finally {
  await service.close();
  await db.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}

async function lexicalAtScale(labelled, bundled) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'axle-eval-large-'));
  const largeDb = await Database.open(path.join(dir, 'axle.db'));
  try {
    await migrate(largeDb);
    const catalogPath = path.join(dir, 'catalog.json');
    fs.writeFileSync(catalogPath, JSON.stringify(generateCatalog(bundled, LARGE)));
    const large = await createSkillsService({
      db: largeDb,
      logger: createLogger('warn'),
      semanticSearch: false,
      catalogPath,
      knowledgeHints: createLearningsService({ db: largeDb, clock: systemClock }),
    });
    try {
      return await score(labelled, async (query) =>
        (await large.search.search({ query, mode: 'lexical', limit: DEPTH })).results.map((r) => r.id),
      );
    } finally {
      await large.close();
    }
  } finally {
    await largeDb.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
