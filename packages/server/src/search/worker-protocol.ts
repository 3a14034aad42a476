/** Messages between the server thread (EmbedderClient) and the embedding worker. */
export type WorkerRequest =
  | { id: number; op: 'init' }
  | { id: number; op: 'embed'; texts: string[] }
  /** Replaces the index: row i of `matrix` (EMBEDDING_DIM floats, unit length) is skill `ids[i]`. */
  | { id: number; op: 'index'; ids: string[]; matrix: Float32Array }
  | { id: number; op: 'search'; query: string; topK: number; minScore: number; allowed?: string[] };

export type WorkerReply = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: string };
