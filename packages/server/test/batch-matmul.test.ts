// The attention's batched products in WebAssembly (search/batch-matmul.ts) against tfjs's own BatchMatMul kernel.
import tf from '@energetic-ai/core';
import { describe, expect, it } from 'vitest';
import { batchMatMul } from '../src/search/batch-matmul.js';

interface Tfjs {
  ready(): Promise<void>;
  getBackend(): string;
  tensor(values: Float32Array, shape: number[], dtype: 'float32'): { dataSync(): Float32Array; dispose(): void };
  matMul(
    a: unknown,
    b: unknown,
    transposeA: boolean,
    transposeB: boolean,
  ): { dataSync(): Float32Array; dispose(): void };
}
const core = tf as unknown as Tfjs;

/** Seeded floats of the spread attention scores and values have, with exact zeros and negative zeros among them. */
function floats(count: number, seed: number): Float32Array {
  let s = seed;
  const out = new Float32Array(count);
  for (let i = 0; i < count; i++) {
    s = (Math.imul(s, 1_103_515_245) + 12_345) >>> 0;
    const u = s / 2 ** 32;
    out[i] = i % 97 === 0 ? 0 : i % 89 === 0 ? -0 : (u - 0.5) * 8 * (i % 5 === 0 ? 100 : 1);
  }
  return out;
}

const bits = (xs: Float32Array) => Array.from(new Uint32Array(xs.buffer, xs.byteOffset, xs.length));

describe('batchMatMul (the attention products)', () => {
  it('gives the floats of tfjs’s WebAssembly BatchMatMul kernel, bit for bit', async () => {
    await core.ready();
    expect(core.getBackend()).toBe('wasm');
    // [batch, m, k, n]: the model's two attention products for 1, 2 and 32 texts (4 heads, 64 or 128 wide),
    // shared dimensions across one, two and three blocks of 48, and shapes no tile divides.
    const shapes: [number, number, number, number][] = [
      [4, 7, 64, 7],
      [4, 7, 7, 64],
      [8, 33, 128, 33],
      [8, 33, 33, 128],
      [128, 40, 128, 40],
      [128, 40, 40, 128],
      [3, 5, 48, 9],
      [3, 5, 49, 9],
      [2, 1, 1, 1],
      [2, 13, 97, 3],
      [5, 4, 144, 8],
    ];
    let seed = 1;
    for (const [batch, m, k, n] of shapes)
      for (const transposeB of [false, true]) {
        const a = floats(batch * m * k, seed++);
        const b = floats(batch * k * n, seed++);
        const ta = core.tensor(a, [batch, m, k], 'float32');
        const tb = core.tensor(b, transposeB ? [batch, n, k] : [batch, k, n], 'float32');
        const expected = core.matMul(ta, tb, false, transposeB);
        const out = new Float32Array(batch * m * n);
        batchMatMul(a, b, batch, m, k, n, transposeB, out);
        expect(bits(out), `${[batch, m, k, n]} ${transposeB}`).toEqual(bits(expected.dataSync()));
        for (const t of [ta, tb, expected]) t.dispose();
      }
  });

  it('refuses operands of the wrong size', () => {
    expect(() => batchMatMul(new Float32Array(6), new Float32Array(5), 2, 1, 3, 1, false, new Float32Array(2))).toThrow(
      /floats for/,
    );
  });
});
