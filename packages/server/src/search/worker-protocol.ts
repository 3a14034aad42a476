import type { QuantizedRows } from '../domain/quantize.js';

/** Messages between the server thread (EmbedderClient) and the embedding worker. */
export type WorkerRequest =
  | { id: number; op: 'init' }
  | { id: number; op: 'embed'; texts: string[] }
  /** Replaces the index: row i of `rows` (EMBEDDING_DIM int8 codes of a unit vector) is skill `ids[i]`. */
  | { id: number; op: 'index'; ids: string[]; rows: QuantizedRows }
  /** Answers SemanticHits: the nearest skills and the query's vector (the server thread reranks with it). */
  | { id: number; op: 'search'; query: string; topK: number; minScore: number; allowed?: string[] }
  /** A query's unit vector alone (learnings are searched on the server thread); batched and cached like searches. */
  | { id: number; op: 'query'; query: string };

/** A search's answer: the nearest skills, best first, and the query's unit vector. */
export interface SemanticHits {
  hits: Array<{ id: string; score: number }>;
  vector: Float32Array;
}

export type WorkerReply = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: string };

/** Searches embedded in one model call at most (batching lowers the CPU a query costs; larger batches add latency). */
export const MAX_SEARCH_BATCH = 4;
