// The sentence model's attention products ([batch, L, L] x [batch, L, d] and the like) in a WebAssembly SIMD
// kernel (wasm/batch-matmul.wat) that sums in the order of tfjs's WebAssembly BatchMatMul loop, which runs
// every batched product one element at a time: the same floats, bit for bit (tested), several times faster.
import { instantiateKernel, type KernelMemory, reserveBytes } from './wasm-kernel.js';

interface Kernel {
  memory: KernelMemory;
  bmm(
    a: number,
    b: number,
    out: number,
    packed: number,
    tile: number,
    batch: number,
    m: number,
    k: number,
    n: number,
    transB: number,
  ): void;
}

let kernel: Kernel | undefined;

const roundUp = (x: number, to: number) => Math.ceil(x / to) * to;

/** Most bytes of operands a kernel call holds: larger batches run in parts, so the kernel's memory stays small. */
const PART_BYTES = 1 << 21;

/**
 * `batch` products a[m x k] times b ([k x n], or [n x k] when `transposeB`), dense row-major, as tfjs's
 * WebAssembly BatchMatMul computes them for a batch of more than one, written to `out` ([batch x m x n]).
 */
export function batchMatMul(
  a: Float32Array,
  b: Float32Array,
  batch: number,
  m: number,
  k: number,
  n: number,
  transposeB: boolean,
  out: Float32Array,
): void {
  if (
    a.length !== batch * m * k ||
    b.length !== batch * k * n ||
    out.length !== batch * m * n ||
    m < 1 ||
    k < 1 ||
    n < 1
  )
    throw new Error(
      `batchMatMul: ${a.length}, ${b.length} and ${out.length} floats for ${batch} x [${m} x ${k}] x [${k} x ${n}]`,
    );
  kernel ??= instantiateKernel<Kernel>('batch-matmul');
  const part = Math.max(1, Math.floor(PART_BYTES / ((m * k + k * n + m * n) * 4)));
  // Layout (bytes, 16-aligned): a, b, out of one part, b packed to [k x np], the padded output tile [mp x np].
  const np = roundUp(n, 8);
  const mp = roundUp(m, 4);
  const bAt = roundUp(part * m * k * 4, 16);
  const outAt = roundUp(bAt + part * k * n * 4, 16);
  const packedAt = roundUp(outAt + part * m * n * 4, 16);
  const tileAt = roundUp(packedAt + k * np * 4, 16);
  reserveBytes(kernel.memory, tileAt + mp * np * 4);
  const memory = new Float32Array(kernel.memory.buffer);
  for (let first = 0; first < batch; first += part) {
    const count = Math.min(part, batch - first);
    memory.set(a.subarray(first * m * k, (first + count) * m * k), 0);
    memory.set(b.subarray(first * k * n, (first + count) * k * n), bAt / 4);
    kernel.bmm(0, bAt, outAt, packedAt, tileAt, count, m, k, n, transposeB ? 1 : 0);
    out.set(memory.subarray(outAt / 4, outAt / 4 + count * m * n), first * m * n);
  }
}
