// The knowledge marketplace's part of `npm run bench`: POST /learn latency at 1,000 and at 100,000
// learnings (sequential, on servers with semantic search off so the learn path alone is timed), and
// POST /knowledge throughput and latency at 100,000 learnings with 4 connections (semantic on).
//
// The 100,000-learning store is generated once into the bench cache and reused: the 300 labelled
// learnings of bench/knowledge recombined with seeded filler sentences, each stored as POST /learn
// stores an approved learning (band keys, full-text row). Vectors: the model embeds the 300 base
// learnings, and every generated learning gets the vector of the one it varies (near-paraphrases sit
// close in embedding space anyway): the scan's cost is the same, minutes of model time are saved.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { quantizeInto } from '../../packages/server/dist/domain/quantize.js';
import { EmbedderClient } from '../../packages/server/dist/search/embedder.js';
import { EMBEDDING_DIM, EMBEDDING_MODEL } from '../../packages/server/dist/search/embedding-text.js';
import { learningEmbeddingText } from '../../packages/server/dist/search/learning-vectors.js';
import { createKey } from '../../packages/server/dist/services/api-keys.js';
import { Database } from '../../packages/server/dist/store/db.js';
import { learningsStore } from '../../packages/server/dist/store/learnings.js';
import { migrate } from '../../packages/server/dist/store/migrate.js';
import { prng } from './generate.js';
import { insertApproved } from './learnings.js';
import { rotatingQueryLoad } from './load.js';
import { startServer, waitSemantic } from './server.js';

export const LARGE_LEARNINGS = 100_000;
export const SMALL_LEARNINGS = 1_000;
const LEARN_REQUESTS = 200;
const ACCOUNTS = 20;
const CONNECTIONS = 4;
/** The model's kernels get JIT-compiled over the first few hundred queries (as for /discover). */
const WARMUP_S = 20;
const PHASE_S = 8;

const WORDS = (
  'retry backoff jitter timeout lease quorum shard replica index cursor batch window buffer socket handshake certificate ' +
  'rotation token scope header payload schema migration rollback snapshot checkpoint offset partition compaction tombstone ' +
  'latency throughput saturation queue worker pool thread heap allocator journal ledger nonce signature digest manifest ' +
  'artifact registry mirror proxy gateway ingress egress firewall subnet resolver cache eviction staging canary rollout ' +
  'dashboard alert runbook incident postmortem sidecar daemon cron scheduler webhook callback throttle quota budget region'
).split(' ');
const CONTEXTS = [
  'nightly batch',
  'customer-facing API',
  'internal tooling',
  'data pipeline',
  'CI runners',
  'payments backend',
];

const base = () =>
  JSON.parse(fs.readFileSync(new URL('../knowledge/learnings.json', import.meta.url), 'utf8')).learnings;

const sentence = (rand, n) => Array.from({ length: n }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(' ');

/**
 * Learning `k` of the generated set: base learning k mod 300 between two seeded sentences of 60 words, so
 * variants of one base share about a fifth of their word shingles (a catalog of distinct learnings, not of
 * near-duplicates, which POST /learn would have refused).
 */
function generated(bases, k, rand) {
  const b = bases[k % bases.length];
  return {
    ...b,
    id: `lrn_gen${String(k).padStart(6, '0')}`,
    title: `${b.title} (${CONTEXTS[k % CONTEXTS.length]}, ${sentence(rand, 3)})`,
    body: `Setup: ${sentence(rand, 60)}. ${b.body} Afterwards: ${sentence(rand, 60)}.`,
    task_context: `${b.task_context}, ${CONTEXTS[Math.floor(rand() * CONTEXTS.length)]}`,
    base: k % bases.length,
  };
}

export async function buildStore(dir, size, { vectors }) {
  fs.mkdirSync(dir, { recursive: true });
  const db = await Database.open(path.join(dir, 'axle.db'));
  try {
    await migrate(db);
    const bases = base();
    const rand = prng(size);
    const rows = Array.from({ length: size }, (_, k) => generated(bases, k, rand));
    await insertApproved(db, rows);
    if (vectors) {
      const model = new EmbedderClient();
      await model.init();
      const baseVectors = [];
      for (let i = 0; i < bases.length; i += 32)
        baseVectors.push(...(await model.embed(bases.slice(i, i + 32).map(learningEmbeddingText))));
      await model.close();
      const codes = baseVectors.map((v) => {
        const c = new Int8Array(EMBEDDING_DIM);
        return { c, scale: quantizeInto(v, c, 0) };
      });
      for (let i = 0; i < rows.length; i += 2000)
        await db.tx(async (q) => {
          for (const r of rows.slice(i, i + 2000))
            await learningsStore.saveEmbedding(q, r.id, EMBEDDING_MODEL, codes[r.base].c, codes[r.base].scale);
        });
    }
  } finally {
    await db.close();
  }
}

/**
 * API keys of `count` fresh accounts in the store at `dir` (POST /learn is limited to 20 a minute per account, keyed
 * POST /knowledge to 120; anonymous POST /knowledge per address).
 */
export async function makeKeys(dir, count = ACCOUNTS) {
  const db = await Database.open(path.join(dir, 'axle.db'));
  try {
    const now = Date.now();
    const keys = [];
    for (let i = 0; i < count; i++) {
      const id = `acc_bench${now}${i}`;
      await db.run('INSERT INTO accounts (id, email, created_at) VALUES (?, ?, ?)', [id, `${id}@bench.invalid`, now]);
      keys.push((await db.tx((q) => createKey(q, id, { name: 'bench' }, now))).api_key);
    }
    return keys;
  } finally {
    await db.close();
  }
}

const quantile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];

/** Sequential POST /learn with distinct learnings; latency percentiles in ms. */
export async function learnLatency(dir, size) {
  const keys = await makeKeys(dir);
  const server = await startServer({ dataDir: dir, env: { AXLE_SEMANTIC_SEARCH: 'off' }, timeoutMs: 120_000 });
  try {
    const bases = base();
    const rand = prng(Date.now() % 1e9);
    const times = [];
    const statuses = {};
    for (let i = 0; i < LEARN_REQUESTS + 20; i++) {
      const l = generated(bases, Math.floor(rand() * 1e9), rand);
      const body = {
        title: l.title,
        body: l.body,
        category: l.category,
        tags: l.tags,
        task_context: l.task_context,
        outcome: l.outcome,
      };
      const t = performance.now();
      const res = await fetch(`${server.url}/learn`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': keys[i % keys.length] },
        body: JSON.stringify(body),
      });
      await res.arrayBuffer();
      // The first 20 warm the JIT and the statement caches.
      if (i >= 20) {
        times.push(performance.now() - t);
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
      }
    }
    times.sort((a, b) => a - b);
    return {
      size,
      p50: quantile(times, 0.5),
      p99: quantile(times, 0.99),
      mean: times.reduce((a, b) => a + b, 0) / times.length,
      statuses,
    };
  } finally {
    await server.stop();
  }
}

/**
 * Keys a knowledge load rotates through: keyed searches are limited per account (LIMITS.accountWrites.keyedSearch,
 * 120 a minute), so the load spreads over enough accounts that no phase meets the limit, and each search still pays
 * for counting itself.
 */
export const SEARCH_KEYS = 400;

/** POST /knowledge with `apiKeys` in turn (keyed searches: the anonymous per-address limit does not apply). */
export function knowledgeLoad(url, queries, seconds, apiKeys) {
  return rotatingQueryLoad(url, '/knowledge', queries, {
    limit: 5,
    seconds,
    connections: CONNECTIONS,
    headers: (i) => ({ 'x-api-key': apiKeys[i % apiKeys.length] }),
  });
}

/** The 100,000-learning store under `cacheRoot`, built on first use: its directory and build time (s). */
export async function largeStore(cacheRoot) {
  const largeDir = path.join(cacheRoot, `learnings-${LARGE_LEARNINGS}-v2`);
  const marker = path.join(largeDir, 'ready');
  if (!fs.existsSync(marker)) {
    fs.rmSync(largeDir, { recursive: true, force: true });
    const t = performance.now();
    await buildStore(largeDir, LARGE_LEARNINGS, { vectors: true });
    fs.writeFileSync(marker, String(Math.round((performance.now() - t) / 1000)));
  }
  return { dir: largeDir, buildS: Number(fs.readFileSync(marker, 'utf8')) };
}

/**
 * The queries of the /knowledge phases: the labelled ones, then variants each with a filler word added; more
 * than three measured phases send, so a bench that measures several can give each its own (the embedding
 * workers cache query vectors).
 */
export function knowledgeQueries() {
  const labelled = JSON.parse(
    fs.readFileSync(new URL('../knowledge/queries.json', import.meta.url), 'utf8'),
  ).queries.map((q) => q.query);
  const rand = prng(7);
  const extra = Array.from(
    { length: 12_000 },
    () => `${labelled[Math.floor(rand() * labelled.length)]} ${WORDS[Math.floor(rand() * WORDS.length)]}`,
  );
  return [...labelled, ...extra];
}

/** The measured queries of round `round` of `rounds`: the first half of `queries`, a distinct part a round. */
export function roundQueries(queries, round, rounds) {
  const part = Math.floor(queries.length / 2 / rounds);
  return queries.slice(round * part, (round + 1) * part);
}

/** Runs every knowledge phase; `cacheRoot` keeps the 100,000-learning store between runs. */
export async function knowledgeBench(cacheRoot) {
  const out = {};
  const { dir: largeDir, buildS } = await largeStore(cacheRoot);
  out.buildS = buildS;
  const smallDir = fs.mkdtempSync(path.join(os.tmpdir(), 'axle-bench-learnings-'));
  try {
    await buildStore(smallDir, SMALL_LEARNINGS, { vectors: false });
    out.learnSmall = await learnLatency(smallDir, SMALL_LEARNINGS);
  } finally {
    fs.rmSync(smallDir, { recursive: true, force: true });
  }
  out.learnLarge = await learnLatency(largeDir, LARGE_LEARNINGS);

  const keys = await makeKeys(largeDir, SEARCH_KEYS);
  const server = await startServer({ dataDir: largeDir, env: { AXLE_SEMANTIC_SEARCH: 'on' }, timeoutMs: 120_000 });
  try {
    out.semantic = (await waitSemantic(server.url, 120_000)).state;
    const queries = knowledgeQueries();
    out.warmup = await knowledgeLoad(server.url, queries.slice(queries.length / 2), WARMUP_S, keys);
    out.knowledge = await knowledgeLoad(server.url, queries.slice(0, queries.length / 2), PHASE_S, keys);
  } finally {
    await server.stop();
  }
  return out;
}
