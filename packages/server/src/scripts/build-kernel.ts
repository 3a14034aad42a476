// `npm run kernel`: assembles each wasm/<name>.wat into wasm/<name>.wasm with wabt (a dev dependency). Both
// files are committed, so the server needs neither wabt nor this step at run time; a test checks that each
// committed binary is what its source assembles to.
import fs from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import wabt from 'wabt';

/** The kernels: int8 dot products (search/int8-index.ts), the attention's products (search/batch-matmul.ts), products of mostly-zero rows (search/sparse-rows.ts). */
export const KERNELS = ['int8-dot', 'batch-matmul', 'sparse-rows'] as const;
export type KernelName = (typeof KERNELS)[number];

export const kernelSource = (name: KernelName) => fileURLToPath(new URL(`../../wasm/${name}.wat`, import.meta.url));
export const kernelBinary = (name: KernelName) => fileURLToPath(new URL(`../../wasm/${name}.wasm`, import.meta.url));

export async function assembleKernel(name: KernelName): Promise<Uint8Array> {
  const module = (await wabt()).parseWat(`${name}.wat`, fs.readFileSync(kernelSource(name), 'utf8'));
  try {
    return module.toBinary({}).buffer;
  } finally {
    module.destroy();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const name of KERNELS) {
    const bytes = await assembleKernel(name);
    fs.writeFileSync(kernelBinary(name), bytes);
    console.log(`${kernelBinary(name)}: ${bytes.length} bytes`);
  }
}
