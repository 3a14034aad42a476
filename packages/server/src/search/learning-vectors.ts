import type { Clock } from '../clock.js';
import { quantizeInto } from '../domain/quantize.js';
import type { Logger } from '../logger.js';
import type { Transactor } from '../store/queryable.js';
import { learningsStore } from '../store/learnings.js';
import { EMBEDDING_DIM, EMBEDDING_MODEL } from './embedding-text.js';
import { Int8Index } from './int8-index.js';
import { topK } from './top-k.js';

/** What learning vectors need of the skills' semantic side: the same model, once it is ready. */
export interface VectorModel {
  state(): string;
  embed(texts: string[]): Promise<Float32Array[]>;
  queryVector(query: string): Promise<Float32Array>;
}

/** How often an instance looks for vectors other instances stored (ms). */
const SYNC_INTERVAL_MS = 1000;
/** Rows scanned in JavaScript past the WebAssembly index before it is rebuilt with them. */
const REBUILD_AFTER_ROWS = 2000;
const LOAD_PAGE = 5000;
const FILL_BATCH = 16;
const MAX_BODY_CHARS = 600;

/** The text a learning is embedded from. */
export function learningEmbeddingText(l: { title: string; body: string; tags: string[]; category: string }): string {
  const body = l.body.length > MAX_BODY_CHARS ? `${l.body.slice(0, MAX_BODY_CHARS)}…` : l.body;
  const tags = l.tags.length > 0 ? ` Tags: ${l.tags.join(', ')}.` : '';
  return `${l.title}: ${body}${tags} Category: ${l.category.replaceAll('-', ' ')}.`;
}

/**
 * Sentence vectors of visible learnings, stored int8 in learning_embeddings and searched here by cosine:
 * rows up to the last rebuild through the WebAssembly kernel (Int8Index), newer rows in JavaScript. Vectors
 * are computed in the background for visible learnings that lack one; every instance loads the rows any
 * instance stored. Results may name learnings no longer visible: callers filter.
 */
export class LearningVectors {
  private ids: string[] = [];
  private codes = new Int8Array(0);
  private scales = new Float32Array(0);
  private rowOf = new Map<string, number>();
  private index: Int8Index | undefined;
  private lastRow = 0;
  private syncedAt = Number.NEGATIVE_INFINITY;
  private syncing: Promise<void> | undefined;
  private filling: Promise<void> | undefined;
  private refill = false;
  private closed = false;

  constructor(
    private readonly db: Transactor,
    private readonly model: VectorModel,
    private readonly logger: Logger,
    private readonly clock: Clock,
    /** Called after vectors were stored, so other instances load them (store/changes.ts). */
    private readonly onStored: () => Promise<unknown> = async () => undefined,
  ) {}

  ready(): boolean {
    return this.model.state() === 'ready';
  }

  /** Computes missing vectors in the background (call after learnings became visible). */
  fill(): Promise<void> {
    if (!this.ready() || this.closed) return Promise.resolve();
    if (this.filling) {
      this.refill = true;
      return this.filling;
    }
    this.filling = (async () => {
      do {
        this.refill = false;
        for (;;) {
          if (this.closed || !this.ready()) return;
          const todo = await learningsStore.missingEmbeddings(this.db, EMBEDDING_MODEL, FILL_BATCH);
          if (todo.length === 0) break;
          const vectors = await this.model.embed(todo.map(learningEmbeddingText));
          await this.db.tx(async (q) => {
            // Instances load rows past the last id they saw: stores are serialised so ids commit in order.
            await q.lock('axle:learning-embeddings');
            for (const [i, l] of todo.entries()) {
              const codes = new Int8Array(EMBEDDING_DIM);
              const scale = quantizeInto(vectors[i]!, codes, 0);
              await learningsStore.saveEmbedding(q, l.id, EMBEDDING_MODEL, codes, scale);
            }
          });
          await this.onStored();
        }
      } while (this.refill);
    })()
      .catch((err) => this.logger.warn({ err: (err as Error).message }, 'learning vectors not computed'))
      .finally(() => (this.filling = undefined));
    return this.filling;
  }

  /** Loads vectors stored since the last look (at most once a second unless forced). */
  sync(force = false): Promise<void> {
    if (!force && this.clock.now() - this.syncedAt < SYNC_INTERVAL_MS) return Promise.resolve();
    this.syncing ??= (async () => {
      for (;;) {
        const rows = await learningsStore.embeddingsAfter(this.db, EMBEDDING_MODEL, this.lastRow, LOAD_PAGE);
        for (const r of rows) this.add(r.learningId, r.codes, r.scale);
        if (rows.length > 0) this.lastRow = rows[rows.length - 1]!.row;
        if (rows.length < LOAD_PAGE) break;
      }
      this.syncedAt = this.clock.now();
      this.rebuildIfStale();
    })().finally(() => (this.syncing = undefined));
    return this.syncing;
  }

  private add(id: string, codes: Uint8Array, scale: number): void {
    let row = this.rowOf.get(id);
    if (row === undefined) {
      row = this.ids.length;
      this.ids.push(id);
      this.rowOf.set(id, row);
      if ((row + 1) * EMBEDDING_DIM > this.codes.length) {
        const grown = new Int8Array(Math.max(EMBEDDING_DIM * 1024, this.codes.length * 2));
        grown.set(this.codes);
        this.codes = grown;
        const scales = new Float32Array(grown.length / EMBEDDING_DIM);
        scales.set(this.scales);
        this.scales = scales;
      }
    } else if (this.index && row < this.index.size) this.index = undefined; // a recomputed vector: rebuild
    this.codes.set(new Int8Array(codes.buffer, codes.byteOffset, EMBEDDING_DIM), row * EMBEDDING_DIM);
    this.scales[row] = scale;
  }

  get size(): number {
    return this.ids.length;
  }

  /** Nearest learnings to `query` (cosine at least minScore), among `allowed` when given; best first. */
  async search(
    query: string,
    k: number,
    minScore: number,
    allowed?: Set<string> | null,
  ): Promise<Array<{ id: string; score: number }>> {
    const [vector] = await Promise.all([this.model.queryVector(query), this.sync()]);
    const rows = this.ids.length;
    const index = this.rebuildIfStale();
    const indexed = index.search(vector, k, minScore, allowed ?? undefined);
    const from = index.size;
    if (from === rows) return indexed;
    // Rows stored since the rebuild: float query against their int8 codes.
    const q = vector;
    const score = (r: number) => {
      const row = from + r;
      let dot = 0;
      const base = row * EMBEDDING_DIM;
      for (let j = 0; j < EMBEDDING_DIM; j++) dot += q[j]! * this.codes[base + j]!;
      return dot * this.scales[row]!;
    };
    const keep = allowed ? (r: number) => allowed.has(this.ids[from + r]!) : undefined;
    const recent = topK(rows - from, k, minScore, score, keep).map((s) => ({
      id: this.ids[from + s.row]!,
      score: s.score,
    }));
    return [...indexed, ...recent].sort((a, b) => b.score - a.score).slice(0, k);
  }

  /** The WebAssembly index, rebuilt with every row once REBUILD_AFTER_ROWS rows were added since the last build. */
  private rebuildIfStale(): Int8Index {
    const n = this.ids.length;
    if (!this.index || n - this.index.size >= REBUILD_AFTER_ROWS)
      this.index = new Int8Index(
        this.ids.slice(0, n),
        { codes: this.codes.subarray(0, n * EMBEDDING_DIM), scales: this.scales.subarray(0, n) },
        EMBEDDING_DIM,
      );
    return this.index;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.filling;
  }
}
