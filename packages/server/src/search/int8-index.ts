import fs from 'node:fs';
import { type QuantizedRows, quantizeInto } from '../domain/quantize.js';
import { topK } from './top-k.js';

// wasm/ sits beside src/ and dist/, so this path works from both.
const KERNEL_FILE = new URL('../../wasm/int8-dot.wasm', import.meta.url);
const PAGE = 65_536;

interface Kernel {
  memory: { buffer: ArrayBuffer; grow(pages: number): number };
  dots(q: number, m: number, rows: number, dim: number, out: number): void;
}

/** The part of Node's WebAssembly global used here (TypeScript declares it only in lib.dom). */
interface Wasm {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: unknown };
}
const { Module, Instance } = (globalThis as unknown as { WebAssembly: Wasm }).WebAssembly;
let kernelModule: object | undefined;

/**
 * Exact nearest-neighbour search by cosine over int8 codes of unit vectors, scanned by a WebAssembly
 * SIMD kernel (wasm/int8-dot.wat), an order of magnitude faster than float dot products in JavaScript.
 * A score is the int8 dot product scaled back by the query's and the row's quantisation scales, within
 * about 0.01 of the float cosine.
 */
export class Int8Index {
  private readonly kernel: Kernel;
  private readonly queryCodes: Int8Array;
  private readonly scores: Int32Array;
  private readonly rowOf: Map<string, number>;

  private readonly scales: Float32Array;

  /** Row i of `rows` (`dim` components) is `ids[i]`; the codes are copied into the kernel's memory. */
  constructor(
    readonly ids: readonly string[],
    rows: QuantizedRows,
    private readonly dim: number,
  ) {
    if (dim % 16 !== 0) throw new Error(`vector length ${dim} is not a multiple of 16`);
    if (rows.codes.length !== ids.length * dim || rows.scales.length !== ids.length)
      throw new Error(
        `${rows.scales.length} rows of ${rows.codes.length / Math.max(rows.scales.length, 1)} codes for ${ids.length} ids of ${dim}`,
      );
    kernelModule ??= new Module(fs.readFileSync(KERNEL_FILE));
    this.kernel = new Instance(kernelModule).exports as Kernel;
    const count = ids.length;
    // Layout: the query's codes, the matrix's, then one i32 score per row.
    const bytes = dim + count * dim + count * 4;
    const pages = Math.ceil(bytes / PAGE);
    const have = this.kernel.memory.buffer.byteLength / PAGE;
    if (pages > have) this.kernel.memory.grow(pages - have);
    const buffer = this.kernel.memory.buffer;
    this.queryCodes = new Int8Array(buffer, 0, dim);
    new Int8Array(buffer, dim, count * dim).set(rows.codes);
    this.scales = rows.scales;
    this.scores = new Int32Array(buffer, dim + count * dim, count);
    this.rowOf = new Map(ids.map((id, row) => [id, row]));
  }

  get size(): number {
    return this.ids.length;
  }

  /** Cosine of unit vector `q` with every row, in row order. */
  scoreAll(q: Float32Array): Float32Array {
    if (q.length !== this.dim) throw new Error(`query has ${q.length} components, the index ${this.dim}`);
    const rows = this.ids.length;
    const qScale = quantizeInto(q, this.queryCodes, 0);
    this.kernel.dots(0, this.dim, rows, this.dim, this.dim + rows * this.dim);
    const out = new Float32Array(rows);
    for (let row = 0; row < rows; row++) out[row] = this.scores[row]! * qScale * this.scales[row]!;
    return out;
  }

  /** The `k` rows most similar to unit vector `q`, at least `minScore`, among `allowed` when given; best first. */
  search(
    q: Float32Array,
    k: number,
    minScore: number,
    allowed?: Iterable<string>,
  ): Array<{ id: string; score: number }> {
    if (q.length !== this.dim) throw new Error(`query has ${q.length} components, the index ${this.dim}`);
    const rows = this.ids.length;
    const qScale = quantizeInto(q, this.queryCodes, 0);
    this.kernel.dots(0, this.dim, rows, this.dim, this.dim + rows * this.dim);
    let keep: ((row: number) => boolean) | undefined;
    if (allowed) {
      const mask = new Uint8Array(rows);
      for (const id of allowed) {
        const row = this.rowOf.get(id);
        if (row !== undefined) mask[row] = 1;
      }
      keep = (row) => mask[row] === 1;
    }
    const { scores, scales } = this;
    return topK(rows, k, minScore, (row) => scores[row]! * qScale * scales[row]!, keep).map((s) => ({
      id: this.ids[s.row]!,
      score: s.score,
    }));
  }
}
