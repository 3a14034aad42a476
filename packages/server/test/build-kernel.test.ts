// The committed WebAssembly kernels (wasm/*.wasm) against their .wat sources.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { assembleKernel, KERNELS, kernelBinary } from '../src/scripts/build-kernel.js';

describe('the WebAssembly kernels', () => {
  it.each(KERNELS)('%s is committed exactly as `npm run kernel` assembles it from the .wat source', async (name) => {
    expect(Buffer.from(await assembleKernel(name)).equals(fs.readFileSync(kernelBinary(name)))).toBe(true);
  });
});
