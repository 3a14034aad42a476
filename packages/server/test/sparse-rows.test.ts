// Products of mostly-zero rows in WebAssembly on tfjs's heap (search/sparse-rows.ts) against XNNPACK's, through tfjs.
import tf from '@energetic-ai/core';
import { describe, expect, it } from 'vitest';
import { sparseRowsFits, sparseRowsProduct, type WasmHeap } from '../src/search/sparse-rows.js';

interface T {
  dataSync(): Float32Array;
  dispose(): void;
}
interface Tfjs {
  ready(): Promise<void>;
  getBackend(): string;
  tensor(values: Float32Array, shape: number[], dtype: 'float32'): T;
  zeros(shape: number[]): T;
  matMul(a: T, b: T): T;
  backend(): {
    typedArrayFromHeap(t: T): Float32Array;
    wasm: { asm: { memory: object }; _malloc(bytes: number): number; _free(at: number): void };
  };
}
const core = tf as unknown as Tfjs;

/** Seeded floats; `zeroShare` of them +0, and a few -0 (as a weight may be). */
function floats(count: number, seed: number, zeroShare: number): Float32Array {
  let s = seed;
  const next = () => {
    s = (Math.imul(s, 1_103_515_245) + 12_345) >>> 0;
    return s / 2 ** 32;
  };
  const out = new Float32Array(count);
  for (let i = 0; i < count; i++) {
    const u = next();
    out[i] = next() < zeroShare ? 0 : i % 101 === 0 ? -0 : (u - 0.5) * 6 * (i % 7 === 0 ? 50 : 1);
  }
  return out;
}

const bits = (xs: Float32Array) => Array.from(new Uint32Array(xs.buffer, xs.byteOffset, xs.length));

describe('sparseRowsProduct (the feed-forward layer after its ReLU)', () => {
  it('gives the floats of XNNPACK’s product through tfjs, bit for bit, at any share of zeros', async () => {
    await core.ready();
    expect(core.getBackend()).toBe('wasm');
    const backend = core.backend();
    const heap: WasmHeap = {
      memory: backend.wasm.asm.memory,
      malloc: (bytes) => backend.wasm._malloc(bytes),
      free: (at) => backend.wasm._free(at),
    };
    // [m, k, n, share of zeros in a]: the model's (44 tokens, 1536 -> 512), a row of zeros, dense rows, odd sizes.
    const cases: [number, number, number, number][] = [
      [44, 1536, 512, 0.92],
      [1, 1536, 512, 1],
      [7, 1536, 512, 0],
      [5, 97, 64, 0.5],
      [13, 1, 32, 0.3],
      [0, 16, 32, 0.5],
    ];
    let seed = 7;
    for (const [m, k, n, share] of cases) {
      const a = core.tensor(floats(m * k, seed++, share), [m, k], 'float32');
      const w = core.tensor(floats(k * n, seed++, 0.02), [k, n], 'float32');
      const expected = core.matMul(a, w);
      const out = core.zeros([m, n]);
      const at = (t: T) => backend.typedArrayFromHeap(t).byteOffset;
      sparseRowsProduct(heap, at(a), at(w), at(out), m, k, n);
      expect(bits(out.dataSync()), `${[m, k, n, share]}`).toEqual(bits(expected.dataSync()));
      for (const t of [a, w, expected, out]) t.dispose();
    }
  });

  it('computes whole tiles of 32 columns only', () => {
    expect([32, 512, 1536].every(sparseRowsFits)).toBe(true);
    expect([0, 16, 33].some(sparseRowsFits)).toBe(false);
  });
});
