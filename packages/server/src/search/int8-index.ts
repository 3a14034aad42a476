import { type QuantizedRows, quantizeInto } from '../domain/quantize.js';
import { topK } from './top-k.js';
import { instantiateKernel, type KernelMemory, reserveBytes } from './wasm-kernel.js';

interface Kernel {
  memory: KernelMemory;
  dots(q: number, m: number, rows: number, dim: number, out: number): void;
  dotsAt(q: number, m: number, at: number, n: number, dim: number, out: number): void;
  hamming(q: number, m: number, rows: number, bytes: number, out: number): void;
}

/**
 * From this many rows on, a search first ranks every row by the Hamming distance between the sign bits of
 * its codes and the query's (an eighth of the bytes), then scores exactly the COARSE_SHARE nearest. Below it
 * (the skill catalogs) every row is scored exactly. Figures in bench/README.md ("Knowledge marketplace").
 */
export const COARSE_MIN_ROWS = 50_000;
export const COARSE_SHARE = 0.05;

/** Coarse pass state: offsets into the kernel's memory and views of it. */
interface Coarse {
  queryBits: Uint8Array;
  matrix: number;
  distances: Int32Array;
  candidates: Int32Array;
  candidateScores: Int32Array;
  /** Rows of each Hamming distance 0..dim, rebuilt per search. */
  histogram: Int32Array;
}

/** Sign bits of `count` rows of int8 `codes` (`dim` each) into `out`: bit j of row r is set when code j >= 0. */
function signBits(codes: Int8Array, count: number, dim: number, out: Uint8Array): void {
  const bytes = dim / 8;
  for (let r = 0; r < count; r++)
    for (let b = 0; b < bytes; b++) {
      let v = 0;
      const at = r * dim + b * 8;
      for (let i = 0; i < 8; i++) if (codes[at + i]! >= 0) v |= 1 << i;
      out[r * bytes + b] = v;
    }
}

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
  private readonly listed: Int32Array;
  private readonly rowOf: Map<string, number>;

  private readonly scales: Float32Array;
  private readonly coarse: Coarse | undefined;

  /**
   * Row i of `rows` (`dim` components) is `ids[i]`; the codes are copied into the kernel's memory. The coarse
   * pass runs from `coarseFrom` rows on.
   */
  constructor(
    readonly ids: readonly string[],
    rows: QuantizedRows,
    private readonly dim: number,
    coarseFrom = COARSE_MIN_ROWS,
  ) {
    if (dim % 16 !== 0) throw new Error(`vector length ${dim} is not a multiple of 16`);
    if (rows.codes.length !== ids.length * dim || rows.scales.length !== ids.length)
      throw new Error(
        `${rows.scales.length} rows of ${rows.codes.length / Math.max(rows.scales.length, 1)} codes for ${ids.length} ids of ${dim}`,
      );
    this.kernel = instantiateKernel<Kernel>('int8-dot');
    const count = ids.length;
    const coarse = count >= coarseFrom && dim % 128 === 0 && dim <= 3968;
    const bitBytes = dim / 8;
    const picked = Math.ceil(count * COARSE_SHARE);
    // Layout: the query's codes, the matrix's, one i32 score per row, room for a list of rows (scoreRows); with
    // the coarse pass, the query's sign bits, the rows', one i32 distance per row, then the picked rows and their
    // scores.
    const scoresAt = dim + count * dim;
    const listedAt = scoresAt + count * 4;
    const bitsAt = listedAt + count * 4;
    const distancesAt = bitsAt + bitBytes + count * bitBytes;
    const candidatesAt = distancesAt + count * 4;
    const bytes = coarse ? candidatesAt + picked * 8 : bitsAt;
    reserveBytes(this.kernel.memory, bytes);
    const buffer = this.kernel.memory.buffer;
    this.queryCodes = new Int8Array(buffer, 0, dim);
    new Int8Array(buffer, dim, count * dim).set(rows.codes);
    this.scales = rows.scales;
    this.scores = new Int32Array(buffer, scoresAt, count);
    this.listed = new Int32Array(buffer, listedAt, count);
    this.rowOf = new Map(ids.map((id, row) => [id, row]));
    if (coarse) {
      signBits(rows.codes, count, dim, new Uint8Array(buffer, bitsAt + bitBytes, count * bitBytes));
      this.coarse = {
        queryBits: new Uint8Array(buffer, bitsAt, bitBytes),
        matrix: bitsAt + bitBytes,
        distances: new Int32Array(buffer, distancesAt, count),
        candidates: new Int32Array(buffer, candidatesAt, picked),
        candidateScores: new Int32Array(buffer, candidatesAt + picked * 4, picked),
        histogram: new Int32Array(dim + 1),
      };
    }
  }

  get size(): number {
    return this.ids.length;
  }

  /** The cosine of unit vector `q` with each of `rows` (row numbers, at most `size` of them), in their order. */
  scoreRows(q: Float32Array, rows: readonly number[]): Float32Array {
    if (q.length !== this.dim) throw new Error(`query has ${q.length} components, the index ${this.dim}`);
    if (rows.length > this.ids.length) throw new Error(`${rows.length} rows listed of ${this.ids.length}`);
    const qScale = quantizeInto(q, this.queryCodes, 0);
    this.listed.set(rows);
    const { listed, scores } = this;
    this.kernel.dotsAt(0, this.dim, listed.byteOffset, rows.length, this.dim, scores.byteOffset);
    const out = new Float32Array(rows.length);
    for (const [k, row] of rows.entries()) out[k] = scores[k]! * qScale * this.scales[row]!;
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
    let mask: Uint8Array | undefined;
    if (allowed) {
      mask = new Uint8Array(rows);
      for (const id of allowed) {
        const row = this.rowOf.get(id);
        if (row !== undefined) mask[row] = 1;
      }
    }
    const { scales } = this;
    if (this.coarse) {
      const picked = this.pick(this.coarse, mask);
      const { candidates, candidateScores } = this.coarse;
      this.kernel.dotsAt(0, this.dim, candidates.byteOffset, picked, this.dim, candidateScores.byteOffset);
      // Candidates are in row order, so ties still go to the earlier row.
      return topK(picked, k, minScore, (i) => candidateScores[i]! * qScale * scales[candidates[i]!]!).map((s) => ({
        id: this.ids[candidates[s.row]!]!,
        score: s.score,
      }));
    }
    this.kernel.dots(0, this.dim, rows, this.dim, this.dim + rows * this.dim);
    const { scores } = this;
    const keep = mask ? (row: number) => mask[row] === 1 : undefined;
    return topK(rows, k, minScore, (row) => scores[row]! * qScale * scales[row]!, keep).map((s) => ({
      id: this.ids[s.row]!,
      score: s.score,
    }));
  }

  /**
   * The coarse pass: the picked rows (at most COARSE_SHARE of all, among `mask` when given) nearest the
   * query's sign bits, written in row order to `c.candidates`; returns how many. Rows at the cut-off
   * distance are taken in row order.
   */
  private pick(c: Coarse, mask: Uint8Array | undefined): number {
    const rows = this.ids.length;
    const codes = this.queryCodes;
    for (let b = 0; b < c.queryBits.length; b++) {
      let v = 0;
      for (let i = 0; i < 8; i++) if (codes[b * 8 + i]! >= 0) v |= 1 << i;
      c.queryBits[b] = v;
    }
    this.kernel.hamming(c.queryBits.byteOffset, c.matrix, rows, c.queryBits.length, c.distances.byteOffset);
    const { distances, histogram, candidates } = c;
    histogram.fill(0);
    for (let r = 0; r < rows; r++) if (!mask || mask[r] === 1) histogram[distances[r]!]!++;
    let cut = 0;
    let below = 0;
    while (cut < histogram.length - 1 && below + histogram[cut]! < candidates.length) below += histogram[cut++]!;
    let atCut = candidates.length - below;
    let n = 0;
    for (let r = 0; r < rows && n < candidates.length; r++) {
      if (mask && mask[r] !== 1) continue;
      const d = distances[r]!;
      if (d < cut || (d === cut && atCut-- > 0)) candidates[n++] = r;
    }
    return n;
  }
}
