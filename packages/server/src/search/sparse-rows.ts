// A float matrix product whose left operand is mostly zeros (the sentence model's feed-forward layer after its
// ReLU), in a WebAssembly SIMD kernel (wasm/sparse-rows.wat) run on tfjs's own memory: it skips the zero terms,
// which leave XNNPACK's sums as they are, so the floats are XNNPACK's, bit for bit (tested), for a tenth of the work.
import { instantiateKernel } from './wasm-kernel.js';

/** tfjs's WebAssembly memory and allocator (its Emscripten module's). */
export interface WasmHeap {
  memory: object;
  malloc(bytes: number): number;
  free(at: number): void;
}

interface Kernel {
  product(a: number, w: number, out: number, at: number, m: number, k: number, n: number): void;
}

const kernels = new WeakMap<object, Kernel>();

/** The widths of product the kernel computes: whole tiles of 32 columns. */
export const sparseRowsFits = (n: number) => n > 0 && n % 32 === 0;

/**
 * out[m x n] = a[m x k] times w[k x n], all dense row-major f32 at byte offsets of `heap`'s memory, summed as
 * XNNPACK's GEMM sums them (each output from +0, in k order), the zero entries of `a` skipped.
 */
export function sparseRowsProduct(heap: WasmHeap, a: number, w: number, out: number, m: number, k: number, n: number) {
  if (!sparseRowsFits(n) || m < 0 || k < 0) throw new Error(`sparseRowsProduct: [${m} x ${k}] x [${k} x ${n}]`);
  let kernel = kernels.get(heap.memory);
  if (!kernel) {
    kernel = instantiateKernel<Kernel>('sparse-rows', { env: { memory: heap.memory } });
    kernels.set(heap.memory, kernel);
  }
  const at = heap.malloc(Math.max(k, 1) * 4);
  try {
    kernel.product(a, w, out, at, m, k, n);
  } finally {
    heap.free(at);
  }
}
