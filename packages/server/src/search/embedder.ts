import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { QuantizedRows } from '../domain/quantize.js';
import { MAX_SEARCH_BATCH, type SemanticHits, type WorkerReply, type WorkerRequest } from './worker-protocol.js';

// The compiled worker: src/search and dist/search sit at the same depth, so this path works from
// both (tests run the sources, and `npm test` builds first).
const WORKER_FILE = fileURLToPath(new URL('../../dist/search/embed-worker.js', import.meta.url));

type Pending = { resolve: (v: unknown) => void; reject: (e: Error) => void };
type Without<R> = R extends unknown ? Omit<R, 'id'> : never;

/**
 * A worker's live JavaScript heap is small (the model's weights and activations are WebAssembly memory);
 * without bounds V8 lets each worker's heap fill with garbage under search load. Embedding 32 skill texts
 * of 800 characters at a time stays well inside these.
 */
const WORKER_HEAP = { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 48 };

/** Talks to the embedding worker; every call is a request answered in order. */
export class EmbedderClient {
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private failure: Error | undefined;

  constructor(file = WORKER_FILE) {
    this.worker = new Worker(file, { resourceLimits: WORKER_HEAP });
    this.worker.on('message', (reply: WorkerReply) => {
      const p = this.pending.get(reply.id);
      if (!p) return;
      this.pending.delete(reply.id);
      if (reply.ok) p.resolve(reply.result);
      else p.reject(new Error(reply.error));
    });
    const fail = (err: Error) => {
      this.failure ??= err;
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
    };
    this.worker.on('error', fail);
    this.worker.on('exit', (code) => fail(new Error(`embedding worker exited (code ${code})`)));
  }

  private call<T>(req: Without<WorkerRequest>, transfer: ArrayBuffer[] = []): Promise<T> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.worker.postMessage({ ...req, id } as WorkerRequest, transfer);
    });
  }

  /** Loads the model (a few hundred milliseconds, once). */
  init(): Promise<void> {
    return this.call({ op: 'init' });
  }
  /** Unit-length vectors, one per text. */
  embed(texts: string[]): Promise<Float32Array[]> {
    return this.call({ op: 'embed', texts });
  }
  /** Replaces the worker's index (the rows are moved to the worker, not copied). */
  setIndex(ids: string[], rows: QuantizedRows): Promise<number> {
    return this.call({ op: 'index', ids, rows }, [rows.codes.buffer as ArrayBuffer, rows.scales.buffer as ArrayBuffer]);
  }
  /** Nearest skills by cosine, best first. */
  search(query: string, topK: number, minScore: number, allowed?: Set<string> | null): Promise<SemanticHits> {
    return this.call({ op: 'search', query, topK, minScore, ...(allowed && { allowed: [...allowed] }) });
  }

  /** A query's unit vector (cached in the worker, batched with searches). */
  queryVector(query: string): Promise<Float32Array> {
    return this.call({ op: 'query', query });
  }

  /** Requests sent and not yet answered. */
  pendingCount(): number {
    return this.pending.size;
  }

  /** False once the worker has failed, exited or been closed. */
  alive(): boolean {
    return this.failure === undefined;
  }

  async close(): Promise<void> {
    this.failure ??= new Error('embedding worker closed');
    await this.worker.terminate();
  }
}

/**
 * What SemanticIndex needs from the model side: one worker (EmbedderClient) or several (EmbedderPool). Only the
 * pool has a queue; a request's texts go through it (`embedQueued`) when there is one, and a request's `signal`
 * takes its work out of the queue when the request stops waiting.
 */
export type Embedder = {
  init(): Promise<void>;
  embed(texts: string[], opts?: BackgroundOptions): Promise<Float32Array[]>;
  setIndex(ids: string[], rows: QuantizedRows): Promise<number>;
  search(
    query: string,
    topK: number,
    minScore: number,
    allowed?: Set<string> | null,
    signal?: AbortSignal,
  ): Promise<SemanticHits>;
  queryVector(query: string, signal?: AbortSignal): Promise<Float32Array>;
  alive(): boolean;
  close(): Promise<void>;
} & Partial<Pick<EmbedderPool, 'embedQueued'>>;

/** A search (or a request's embedding) refused because more than the pool's bound were already waiting for a worker. */
export class EmbedderBusy extends Error {
  constructor(bound: number) {
    super(`more than ${bound} searches are waiting for an embedding worker`);
    this.name = 'EmbedderBusy';
  }
}

/** A request's model work not done within its deadline (AXLE_MODEL_WAIT_MS); the request goes on without it. */
export class EmbedderTimeout extends Error {
  constructor(ms: number) {
    super(`the embedding worker did not answer within ${ms} ms`);
    this.name = 'EmbedderTimeout';
  }
}

/** A request's model work waits at most this long by default (AXLE_MODEL_WAIT_MS). */
export const DEFAULT_MODEL_WAIT_MS = 2000;

/**
 * `run`'s answer, or EmbedderTimeout once `ms` have passed; `run` gets a signal aborted then, so work still
 * waiting in a queue is dropped rather than done for nobody.
 */
export function withDeadline<T>(ms: number, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const err = new EmbedderTimeout(ms);
      controller.abort(err);
      reject(err);
    }, ms);
  });
  return Promise.race([run(controller.signal), expired]).finally(() => clearTimeout(timer));
}

/** Searches that may wait for a worker before more are refused (AXLE_SEARCH_QUEUE_MAX). */
export const DEFAULT_SEARCH_QUEUE_MAX = 16;

/** How background model work shares the workers with requests (EmbedderPool.embed). */
export type BackgroundOptions = { spareWorker?: boolean };

type Job = {
  run: (worker: EmbedderClient) => Promise<unknown>;
  resolve: (result: never) => void;
  reject: (err: Error) => void;
};

/**
 * Several embedding workers, each with its own copy of the model and of the int8 index (EMBEDDING_DIM
 * bytes and a scale a skill). Embedding a query is CPU-bound in its worker, so one worker caps fused
 * search throughput however many cores are free.
 */
export class EmbedderPool implements Embedder {
  private readonly workers: EmbedderClient[];
  /** Requests' model work, served first. */
  private readonly queued: Job[] = [];
  /** Background model work, served when no request waits. */
  private readonly background: Array<Job & BackgroundOptions> = [];
  /** Pieces of `spareWorker` background work in hand. */
  private sparingRunning = 0;

  constructor(
    size: number,
    create: () => EmbedderClient = () => new EmbedderClient(),
    /** Searches that may wait for a worker; past it a search is refused at once (EmbedderBusy). */
    private readonly maxQueued = DEFAULT_SEARCH_QUEUE_MAX,
  ) {
    if (!Number.isInteger(size) || size < 1) throw new Error(`embedder pool size ${size}`);
    this.workers = Array.from({ length: size }, create);
  }

  async init(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.init()));
  }

  /**
   * Background work (warming, learning vectors): `texts` go to the workers MAX_SEARCH_BATCH at a time, each piece
   * only when no request is waiting, so a request waits behind at most one piece. With `spareWorker` (work done
   * while requests are served) the pieces leave one worker free for requests. The order of `texts` is kept.
   */
  async embed(texts: string[], { spareWorker = false }: BackgroundOptions = {}): Promise<Float32Array[]> {
    const pieces: Array<Promise<Float32Array[]>> = [];
    for (let i = 0; i < texts.length; i += MAX_SEARCH_BATCH) {
      const piece = texts.slice(i, i + MAX_SEARCH_BATCH);
      pieces.push(
        new Promise((resolve, reject) => {
          const job = { run: (w: EmbedderClient) => w.embed(piece), resolve: resolve as (r: never) => void, reject };
          this.background.push({ ...job, spareWorker });
        }),
      );
    }
    this.dispatch();
    return (await Promise.all(pieces)).flat();
  }

  /** Every worker gets the index: a copy each, and the last one the rows themselves. */
  async setIndex(ids: string[], rows: QuantizedRows): Promise<number> {
    const last = this.workers.length - 1;
    const copy = () => ({ codes: rows.codes.slice(), scales: rows.scales.slice() });
    const sizes = await this.direct(
      Promise.all(this.workers.map((w, i) => w.setIndex(ids, i === last ? rows : copy()))),
    );
    return sizes[0]!;
  }

  /**
   * Work sent to the workers outside the queues keeps them busy, so the queues are served again once it settles
   * (otherwise a request queued meanwhile waited for the next request to arrive).
   */
  private direct<T>(work: Promise<T>): Promise<T> {
    return work.finally(() => this.dispatch());
  }

  /**
   * Searches wait in one queue; workers with nothing in hand share it out, each taking up to
   * MAX_SEARCH_BATCH into one model call (a batched query costs less CPU than one embedded alone).
   */
  search(
    query: string,
    topK: number,
    minScore: number,
    allowed?: Set<string> | null,
    signal?: AbortSignal,
  ): Promise<SemanticHits> {
    return this.enqueue((w) => w.search(query, topK, minScore, allowed), signal);
  }

  /** A query's unit vector, through the same queue (and worker batches, and load shedding) as searches. */
  queryVector(query: string, signal?: AbortSignal): Promise<Float32Array> {
    return this.enqueue((w) => w.queryVector(query), signal);
  }

  /**
   * Vectors a request needs (the semantic screens of a submission): through the same queue, and the same load
   * shedding (EmbedderBusy), as searches, so requests cannot queue model work without bound.
   */
  embedQueued(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    return this.enqueue((w) => w.embed(texts), signal);
  }

  /** Queues `run` for the next free worker; an aborted `signal` takes it out of the queue (rejected with its reason). */
  private enqueue<T>(run: (worker: EmbedderClient) => Promise<T>, signal?: AbortSignal): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const job = { run, resolve: resolve as (result: never) => void, reject };
      this.queued.push(job);
      this.dispatch();
      // Shed load rather than queue without bound: the caller answers without the semantic side.
      if (this.queued.length > this.maxQueued && this.queued.at(-1) === job) {
        this.queued.pop();
        reject(new EmbedderBusy(this.maxQueued));
        return;
      }
      signal?.addEventListener(
        'abort',
        () => {
          const at = this.queued.indexOf(job);
          if (at < 0) return; // already with a worker: its answer is dropped by the caller
          this.queued.splice(at, 1);
          reject(signal.reason);
        },
        { once: true },
      );
    });
  }

  private dispatch(): void {
    if (!this.alive())
      for (const job of [...this.queued.splice(0), ...this.background.splice(0)])
        job.reject(new Error('no embedding worker is running'));
    const idle = this.workers.filter((w) => w.alive() && w.pendingCount() === 0);
    // Requests are shared out among the idle workers: parallel calls answer sooner while the CPU has room, and
    // batches form by themselves once every worker is busy. A worker left idle takes one piece of background work
    // (of `spareWorker` work, only while another worker stays free; with one worker, pieces and requests alternate).
    for (const [i, worker] of idle.entries()) {
      const take = Math.min(MAX_SEARCH_BATCH, Math.ceil(this.queued.length / (idle.length - i)));
      if (take > 0) {
        for (const job of this.queued.splice(0, take)) this.run(job, worker);
        continue;
      }
      const next = this.background[0];
      if (!next || (next.spareWorker && this.sparingRunning >= Math.max(1, this.workers.length - 1))) continue;
      this.background.shift();
      if (next.spareWorker) this.sparingRunning++;
      this.run(next, worker, () => {
        if (next.spareWorker) this.sparingRunning--;
      });
    }
  }

  private run(job: Job, worker: EmbedderClient, settled = () => {}): void {
    job
      .run(worker)
      .then((r) => job.resolve(r as never), job.reject)
      .finally(() => {
        settled();
        this.dispatch();
      });
  }

  /** True while any worker lives: a worker that died only narrows the pool. */
  alive(): boolean {
    return this.workers.some((w) => w.alive());
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.close()));
  }
}
