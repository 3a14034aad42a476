// `npm run kernel`: assembles wasm/int8-dot.wat into wasm/int8-dot.wasm with wabt (a dev
// dependency). Both files are committed, so the server needs neither wabt nor this step at run
// time; a test checks that the committed binary is what the source assembles to.
import fs from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import wabt from 'wabt';

export const KERNEL_SOURCE = fileURLToPath(new URL('../../wasm/int8-dot.wat', import.meta.url));
export const KERNEL_BINARY = fileURLToPath(new URL('../../wasm/int8-dot.wasm', import.meta.url));

export async function assembleKernel(): Promise<Uint8Array> {
  const module = (await wabt()).parseWat('int8-dot.wat', fs.readFileSync(KERNEL_SOURCE, 'utf8'));
  try {
    return module.toBinary({}).buffer;
  } finally {
    module.destroy();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const bytes = await assembleKernel();
  fs.writeFileSync(KERNEL_BINARY, bytes);
  console.log(`${KERNEL_BINARY}: ${bytes.length} bytes`);
}
