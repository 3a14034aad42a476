import { createHash } from 'node:crypto';
import type { SearchState } from '@axle/sdk';
import type { Logger } from '../logger.js';
import type { EmbeddingSource, SkillsStore, StoredEmbedding } from '../store/skills.js';
import { DEFAULT_MODEL_WAIT_MS, type Embedder, EmbedderClient, withDeadline } from './embedder.js';
import { EMBEDDING_DIM, EMBEDDING_MODEL, embeddingText, textHash } from './embedding-text.js';
import { type QuantizedRows, quantizeInto } from '../domain/quantize.js';
import { bestPassageScores, type OwnedPassage, type PassageIndex, passageIndex, skillPassages } from './passages.js';
import { BUNDLED_VECTORS, readQuantizedRows, readVectorsFile } from './vector-file.js';
import type { SemanticHits } from './worker-protocol.js';

export type SemanticState = SearchState['semantic'];

export interface WarmStats {
  /** Vectors found in the database with a matching text hash. */
  reused: number;
  /** Vectors taken from the bundled precomputed file. */
  bundled: number;
  /** Vectors computed by the model during this start. */
  computed: number;
  ms: number;
}

export interface SemanticIndexOptions {
  repo: SkillsStore;
  logger: Logger;
  /** Precomputed vectors file; the bundled one by default. */
  vectorsFile?: string;
  /** Texts per model call while computing missing vectors (DEFAULT_BATCH_SIZE). */
  batchSize?: number;
  createEmbedder?: () => Embedder;
  /** Warming starts once this settles (or at once without it). */
  startAfter?: Promise<unknown>;
  /** How long a request waits for the model (search, query vector, queued embedding) before going on without it. */
  waitMs?: number;
  /**
   * Passage vectors of MCP servers with tools the bundled file lacks, computed after the index is ready and used to
   * rerank: at most this many for a catalog, the first in catalog order; none by default. The server runs with
   * DEFAULT_PASSAGE_LIMIT.
   */
  passageLimit?: number;
  /**
   * Where computing passage vectors starts in the list of those to compute, and starts again on meeting another
   * instance's saved work, as a fraction of the list (Math.random by default; tests fix it).
   */
  random?: () => number;
}

/** Computed passage vectors the server keeps for a catalog: minutes of one worker's CPU, 10 MB as int8 rows. */
export const DEFAULT_PASSAGE_LIMIT = 20_000;

/** Texts per model call while computing skill or passage vectors, unless told otherwise. */
const DEFAULT_BATCH_SIZE = 32;

/** Skills checked between yields to the event loop while warming, so requests are served meanwhile. */
const WARM_CHUNK = 500;

/**
 * The semantic ranker. `start` returns at once in state `warming`; in the background it loads the
 * model in a worker, brings the stored vectors up to date with the catalog (database first, then
 * the bundled file, then the model, saving as it goes so an interrupted start resumes), hands the
 * matrix to the worker and turns `ready`. Any failure leaves it `unavailable`; search then runs
 * lexically.
 */
export class SemanticIndex {
  private status: SemanticState;
  private embedder: Embedder | undefined;
  /** Tool, example and sentence vectors for reranking that the bundled file holds. */
  private passages: PassageIndex | undefined;
  /** Those of MCP servers with tools that the file lacks, from the database (computed by computePassages). */
  private computedPassages: PassageIndex | undefined;
  /** Passages of servers with tools the file lacks (up to the limit), in catalog order: `computedPassages`' rows. */
  private lacking: OwnedPassage[] = [];
  /** Those of them (hash -> text) the database lacks too, for the model to compute (computePassages). */
  private uncomputed = new Map<string, string>();
  /** The stored catalog's fingerprint, read before the skills `lacking` comes from: pruning holds while it is current. */
  private fingerprint: string | undefined;
  private closed = false;
  private closing!: () => void;
  private readonly closeRequested = new Promise<void>((resolve) => (this.closing = resolve));
  /** Settles when warming ends, whatever the outcome. */
  readonly settled: Promise<WarmStats | undefined>;
  /** A digest of the catalog the workers' index was built from: its ids and embedded texts' hashes, in order. */
  private indexed: string | undefined;
  /** The last refresh asked for; a queued one runs only if no later one was asked for meanwhile. */
  private refreshTickets = 0;
  /** Settles when the refreshes asked for so far have run. */
  private refreshed: Promise<void>;

  private constructor(
    status: SemanticState,
    private readonly opts?: SemanticIndexOptions,
  ) {
    this.status = status;
    this.settled = status === 'warming' ? this.warm() : Promise.resolve(undefined);
    this.refreshed = this.settled.then(() => this.computePassages());
  }

  static disabled(): SemanticIndex {
    return new SemanticIndex('disabled');
  }

  static start(opts: SemanticIndexOptions): SemanticIndex {
    return new SemanticIndex('warming', opts);
  }

  state(): SemanticState {
    return this.status;
  }

  /** A request's wait for the model: at most `waitMs`, then EmbedderTimeout (the request goes on without it). */
  private bounded<T>(run: (embedder: Embedder, signal: AbortSignal) => Promise<T>): Promise<T> {
    const embedder = this.embedder;
    if (this.status !== 'ready' || !embedder) return Promise.reject(new Error(`semantic search is ${this.status}`));
    return withDeadline(this.opts?.waitMs ?? DEFAULT_MODEL_WAIT_MS, (signal) => run(embedder, signal));
  }

  /** Nearest skills (cosine >= minScore) among `allowed` when given, and the query's vector. Only when `ready`; waits at most `waitMs`. */
  async search(query: string, topK: number, minScore: number, allowed?: Set<string> | null): Promise<SemanticHits> {
    if (this.status !== 'ready' || !this.embedder) throw new Error(`semantic search is ${this.status}`);
    try {
      return await this.bounded((e, signal) => e.search(query, topK, minScore, allowed, signal));
    } catch (err) {
      // The worker died: stop offering the semantic side rather than failing every search. (After
      // close() the workers were stopped on purpose: the search fails, and that is not news.)
      if (!this.embedder.alive() && !this.closed) {
        this.status = 'unavailable';
        this.opts?.logger.warn(
          { err: (err as Error).message },
          'semantic search unavailable; skill search runs lexically',
        );
      }
      throw err;
    }
  }

  /** Unit vectors for `texts` from the same model (learnings share it). Only when `ready`. */
  async embed(texts: string[]): Promise<Float32Array[]> {
    if (this.status !== 'ready' || !this.embedder) throw new Error(`semantic search is ${this.status}`);
    // Work done while requests are served: it leaves them a worker.
    return this.embedder.embed(texts, { spareWorker: true });
  }

  /**
   * Unit vectors a request needs, queued with searches (refused with EmbedderBusy past the queue's bound, as a
   * search is). Only when `ready`; waits at most `waitMs` (EmbedderTimeout).
   */
  embedQueued(texts: string[]): Promise<Float32Array[]> {
    return this.bounded((e, signal) => (e.embedQueued ? e.embedQueued(texts, signal) : e.embed(texts)));
  }

  /** A query's unit vector (cached and batched in the workers like searches). Only when `ready`; waits at most `waitMs`. */
  queryVector(query: string): Promise<Float32Array> {
    return this.bounded((e, signal) => e.queryVector(query, signal));
  }

  /** The best cosine of a query's `vector` over each skill's passages, for those of `ids` that have passages. */
  passageScores(vector: Float32Array, ids: readonly string[]): Map<string, number> {
    const best = this.passages ? bestPassageScores(this.passages, vector, ids) : new Map<string, number>();
    if (this.computedPassages)
      for (const [id, score] of bestPassageScores(this.computedPassages, vector, ids))
        if (score > (best.get(id) ?? Number.NEGATIVE_INFINITY)) best.set(id, score);
    return best;
  }

  /**
   * Brings the index up to date with the catalog after it changed (a registry sync, here or on another instance):
   * vectors of new or changed skills come from the database, the bundled file or the model (on a spare worker, so
   * requests keep one), removed skills leave. The index in use serves until the new one replaces it. Calls made
   * while one runs (or while the model loads) are served by one more pass after it; it never rejects.
   */
  refresh(): Promise<void> {
    const ticket = ++this.refreshTickets;
    this.refreshed = this.refreshed.then(async () => {
      if (ticket !== this.refreshTickets) return;
      await this.refreshOnce();
      await this.computePassages();
    });
    return this.refreshed;
  }

  /**
   * Settles once the index reflects every catalog change reported so far (its warming included), with the passage
   * vectors of its MCP servers' tools.
   */
  caughtUp(): Promise<void> {
    return this.refreshed;
  }

  private async refreshOnce(): Promise<void> {
    const embedder = this.embedder;
    if (this.status !== 'ready' || !embedder || this.closed) return;
    const started = performance.now();
    try {
      const stats = await this.index(embedder, Promise.resolve(), { background: true });
      const ms = Math.round(performance.now() - started);
      if (stats) this.opts!.logger.info({ ...stats, ms }, 'semantic index refreshed');
    } catch (err) {
      if (this.closed) return;
      this.opts!.logger.warn({ err: (err as Error).message }, 'semantic index not refreshed; the previous one serves');
    }
  }

  private async warm(): Promise<WarmStats | undefined> {
    const { logger, createEmbedder = () => new EmbedderClient() } = this.opts!;
    await Promise.race([this.opts!.startAfter?.catch(() => undefined), this.closeRequested]);
    if (this.closed) return undefined;
    const started = performance.now();
    try {
      const embedder = createEmbedder();
      this.embedder = embedder;
      const modelReady = embedder.init();
      modelReady.catch(() => undefined); // observed in index(); avoid an unhandled rejection meanwhile
      const indexed = await this.index(embedder, modelReady, { background: false });
      if (!indexed) return undefined;
      const { skills, ...counts } = indexed;
      const stats = { ...counts, ms: Math.round(performance.now() - started) };
      this.status = 'ready';
      logger.info({ model: EMBEDDING_MODEL, skills, ...stats }, 'semantic search ready');
      return stats;
    } catch (err) {
      if (this.closed) return undefined;
      this.status = 'unavailable';
      logger.warn({ err: (err as Error).message }, 'semantic search unavailable; skill search runs lexically');
      await this.embedder?.close().catch(() => undefined);
      return undefined;
    }
  }

  /**
   * Vectors for the catalog as stored now (database first, then the bundled file, then the model, saving as it
   * goes so an interrupted run resumes), handed to the workers with the passages; undefined when closed meanwhile
   * or when nothing changed since the index in use. `background`: the model computes on a spare worker while
   * requests are served; otherwise (a start) the workers are replaced after computing, below.
   */
  private async index(
    embedder: Embedder,
    modelReady: Promise<void>,
    { background }: { background: boolean },
  ): Promise<(Omit<WarmStats, 'ms'> & { skills: number }) | undefined> {
    const {
      repo,
      logger,
      vectorsFile = BUNDLED_VECTORS,
      batchSize = DEFAULT_BATCH_SIZE,
      createEmbedder = () => new EmbedderClient(),
    } = this.opts!;
    // Read first: if another instance replaces the catalog before the skills are read, this one is already stale.
    const fingerprint = await repo.catalogFingerprint();
    const skills = await repo.embeddingSources();
    // Stored vectors stay in this one int8 matrix (quantised as read); only new ones are held apart.
    const stored = await repo.embeddingMatrix(EMBEDDING_MODEL, EMBEDDING_DIM);
    const storedRow = new Map(stored.ids.map((id, row) => [id, row]));
    /** Skill -> its row in stored.rows or in `fresh`. */
    const vectors = new Map<string, { rows: QuantizedRows; row: number }>();
    const missing: Array<{ id: string; text: string; hash: string }> = [];
    const catalog = createHash('sha256');
    let reused = 0;
    for (const [i, s] of skills.entries()) {
      if (i % WARM_CHUNK === WARM_CHUNK - 1) await new Promise((resolve) => setImmediate(resolve));
      const text = embeddingText(s);
      const hash = textHash(text);
      catalog.update(`${s.id}\n${hash}\n`);
      const row = storedRow.get(s.id);
      if (row !== undefined && stored.textHashes[row] === hash) {
        vectors.set(s.id, { rows: stored.rows, row });
        reused++;
      } else missing.push({ id: s.id, text, hash });
    }
    const ids = skills.map((s) => s.id);
    const digest = catalog.digest('base64url');
    if (background && missing.length === 0 && digest === this.indexed) {
      // The skills' texts are unchanged, but not necessarily their passages (a tool's description, an example).
      await this.loadPassages(skills, fingerprint);
      return undefined;
    }

    // Vectors found or computed during this run, quantised as they arrive: as floats they would take
    // four times the memory until the index is built.
    const fresh: QuantizedRows = {
      codes: new Int8Array(missing.length * EMBEDDING_DIM),
      scales: new Float32Array(missing.length),
    };
    let freshRows = 0;
    const keep = (skillId: string, vector: Float32Array) => {
      fresh.scales[freshRows] = quantizeInto(vector, fresh.codes, freshRows * EMBEDDING_DIM);
      vectors.set(skillId, { rows: fresh, row: freshRows++ });
    };

    let bundled = 0;
    if (missing.length > 0) {
      const shipped = readVectorsFile(vectorsFile, EMBEDDING_MODEL);
      const found: StoredEmbedding[] = [];
      for (const m of missing) {
        const v = shipped.get(m.hash);
        if (v) found.push({ skillId: m.id, textHash: m.hash, vector: v });
      }
      await repo.saveEmbeddings(EMBEDDING_MODEL, found);
      for (const f of found) keep(f.skillId, f.vector);
      bundled = found.length;
    }

    await modelReady;
    const todo = missing.filter((m) => !vectors.has(m.id));
    let computed = 0;
    for (let i = 0; i < todo.length && !this.closed; i += batchSize) {
      const batch = todo.slice(i, i + batchSize);
      const out = await embedder.embed(
        batch.map((b) => b.text),
        { spareWorker: background },
      );
      const rows = batch.map((b, j) => ({ skillId: b.id, textHash: b.hash, vector: out[j]! }));
      if (this.closed) break;
      await repo.saveEmbeddings(EMBEDDING_MODEL, rows);
      for (const r of rows) keep(r.skillId, r.vector);
      computed += rows.length;
      if (todo.length > batchSize) logger.debug({ computed, of: todo.length }, 'computing skill embeddings');
    }
    if (this.closed) return undefined;
    let target = embedder;
    if (computed > 0 && !background) {
      // Embedding batches grow each worker's WebAssembly memory, which never shrinks: fresh workers
      // hold only what a query needs, so a start that computed vectors ends as small as one that did not.
      await embedder.close();
      if (this.closed) return undefined;
      target = createEmbedder();
      this.embedder = target;
      await target.init();
      if (this.closed) return undefined;
    }

    // The workers search int8 codes (a quarter of the floats' memory, and each worker holds a copy).
    const kept = ids.filter((id) => vectors.has(id));
    const unchanged = reused === kept.length && kept.every((id, row) => stored.ids[row] === id);
    const rows = unchanged
      ? stored.rows
      : { codes: new Int8Array(kept.length * EMBEDDING_DIM), scales: new Float32Array(kept.length) };
    if (!unchanged)
      for (const [row, id] of kept.entries()) {
        const from = vectors.get(id)!;
        rows.codes.set(
          from.rows.codes.subarray(from.row * EMBEDDING_DIM, (from.row + 1) * EMBEDDING_DIM),
          row * EMBEDDING_DIM,
        );
        rows.scales[row] = from.rows.scales[from.row]!;
      }
    await target.setIndex(kept, rows);
    await this.loadPassages(skills, fingerprint);
    this.indexed = digest;
    return { skills: kept.length, reused, bundled, computed };
  }

  /**
   * The passage indexes of `skills`: vectors from the bundled file (`passages`), and for MCP servers with tools those
   * the file lacks from the database (`computedPassages`: the first `passageLimit` in catalog order); the passages
   * found in neither are left to computePassages (`uncomputed`). `fingerprint`: the stored catalog's, read before `skills`.
   */
  private async loadPassages(skills: readonly EmbeddingSource[], fingerprint: string | undefined): Promise<void> {
    const { vectorsFile = BUNDLED_VECTORS, passageLimit = 0 } = this.opts!;
    const passages: OwnedPassage[] = [];
    /** Where the passages of skills that list tools are in `passages`: [from, to) runs. */
    const ofServers: Array<[number, number]> = [];
    for (const s of skills) {
      const from = passages.length;
      for (const text of skillPassages(s)) passages.push({ owner: s.id, hash: textHash(text) });
      if (listsTools(s) && passages.length > from) ofServers.push([from, passages.length]);
    }
    const distinct = [...new Set(passages.map((p) => p.hash))];
    const { found, rows } = readQuantizedRows(vectorsFile, EMBEDDING_MODEL, distinct);
    const inFile = found.map((i) => distinct[i]!);
    this.passages = found.length > 0 ? passageIndex(inFile, rows, EMBEDDING_DIM, passages) : undefined;

    // Passages of servers with tools the file lacks, in catalog order, up to the limit.
    const lacking: OwnedPassage[] = [];
    const wanted = new Set<string>();
    if (passageLimit > 0 && ofServers.length > 0) {
      const fileHas = new Set(inFile);
      for (const [from, to] of ofServers)
        for (const p of passages.slice(from, to))
          if (!fileHas.has(p.hash) && (wanted.has(p.hash) || wanted.size < passageLimit)) {
            wanted.add(p.hash);
            lacking.push(p);
          }
    }
    this.lacking = lacking;
    this.fingerprint = fingerprint;
    const stored = await this.loadComputed();
    this.uncomputed = new Map();
    if (stored.size < wanted.size)
      for (const s of skills)
        if (listsTools(s))
          for (const text of skillPassages(s)) {
            const hash = textHash(text);
            if (wanted.has(hash) && !stored.has(hash)) this.uncomputed.set(hash, text);
          }
  }

  /** `computedPassages` from the vectors the database holds of `lacking`; returns the hashes it found. */
  private async loadComputed(): Promise<Set<string>> {
    const { repo } = this.opts!;
    const stored =
      this.lacking.length > 0
        ? await repo.passageVectors(
            EMBEDDING_MODEL,
            EMBEDDING_DIM,
            this.lacking.map((p) => p.hash),
          )
        : new Map<string, Float32Array>();
    const held = [...stored.keys()];
    const codes = new Int8Array(held.length * EMBEDDING_DIM);
    const scales = new Float32Array(held.length);
    for (const [row, hash] of held.entries()) scales[row] = quantizeInto(stored.get(hash)!, codes, row * EMBEDDING_DIM);
    this.computedPassages =
      held.length > 0 ? passageIndex(held, { codes, scales }, EMBEDDING_DIM, this.lacking) : undefined;
    return new Set(held);
  }

  /**
   * Computes the passage vectors the last loadPassages found in neither the bundled file nor the database
   * (`uncomputed`), on a spare worker so requests keep one; saves them as it goes (an interrupted run resumes) and
   * then reranks with them, and with those other instances saved meanwhile. Stops early for a refresh asked for
   * meanwhile, which runs it again after. Once none is left, prunes the stored ones the catalog no longer wants.
   * Never rejects.
   */
  private async computePassages(): Promise<void> {
    const { repo, logger, batchSize = DEFAULT_BATCH_SIZE, random = Math.random } = this.opts ?? {};
    const embedder = this.embedder;
    if (this.status !== 'ready' || !embedder || this.closed || !repo || !logger) return;
    if (this.uncomputed.size === 0) return this.prunePassages();
    // A catalog change asked for meanwhile goes first (it waits for one batch at most); this goes on after it.
    const tickets = this.refreshTickets;
    // From a random point (and another one on meeting another instance's work, below), so that instances starting
    // together on one database mostly compute different passages.
    let todo = rotated([...this.uncomputed.keys()], random);
    let computed = 0;
    let fromOthers = 0;
    try {
      for (let i = 0; i < todo.length && !this.closed && this.refreshTickets === tickets; ) {
        const batch = todo.slice(i, i + batchSize);
        i += batch.length;
        const held = await repo.heldPassages(EMBEDDING_MODEL, batch);
        const fresh = batch.filter((hash) => !held.has(hash));
        let saved = 0;
        if (fresh.length > 0) {
          const out = await embedder.embed(
            fresh.map((hash) => this.uncomputed.get(hash)!),
            { spareWorker: true },
          );
          if (this.closed) return;
          saved = await repo.savePassageVectors(
            EMBEDDING_MODEL,
            fresh.map((textHash, j) => ({ textHash, vector: out[j]! })),
          );
        }
        for (const hash of batch) this.uncomputed.delete(hash);
        computed += fresh.length;
        fromOthers += held.size;
        // Another instance saved some of these before this one computed them, or while it did: it works right here, so
        // this one goes on from another point rather than in its wake.
        if (held.size > 0 || saved < fresh.length) {
          todo = rotated(todo.slice(i), random);
          i = 0;
        }
      }
      if (this.closed) return;
      await this.loadComputed();
      logger.info({ computed, fromOthers, left: this.uncomputed.size }, 'passage vectors computed');
    } catch (err) {
      if (this.closed) return;
      logger.warn({ err: (err as Error).message }, 'passage vectors not computed; search reranks without them');
      return;
    }
    if (this.uncomputed.size === 0) await this.prunePassages();
  }

  /**
   * Deletes the stored passage vectors this catalog does not want (another model's, or texts none of its servers has
   * now, up to the limit); only while its catalog is still the stored one, so an instance that has not caught up with
   * a newer catalog deletes nothing that one computed. Never rejects: a failure leaves them for the next run.
   */
  private async prunePassages(): Promise<void> {
    const { repo, logger, passageLimit = 0 } = this.opts!;
    const catalog = this.fingerprint;
    // Without a limit this instance computes none, and does not say which are wanted.
    if (passageLimit === 0 || catalog === undefined || this.closed) return;
    try {
      const wanted = new Set(this.lacking.map((p) => p.hash));
      const pruned = await repo.prunePassageVectors(EMBEDDING_MODEL, wanted, catalog);
      if (pruned > 0) logger.info({ pruned }, 'passage vectors pruned');
    } catch (err) {
      if (this.closed) return;
      logger.warn({ err: (err as Error).message }, 'passage vectors not pruned; search goes on');
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.closing();
    await this.embedder?.close();
    await this.settled;
  }
}

/** Whether a skill lists tools: an MCP server whose passages the model computes when the bundled file lacks them. */
const listsTools = (skill: EmbeddingSource): boolean => (skill.tools?.length ?? 0) > 0;

/** `items` from the point `random()` of the way along on, wrapping around. */
function rotated<T>(items: readonly T[], random: () => number): T[] {
  const from = Math.floor(random() * items.length);
  return [...items.slice(from), ...items.slice(0, from)];
}
