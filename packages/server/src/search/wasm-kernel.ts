// The project's WebAssembly kernels (wasm/<name>.wasm, built from their .wat sources by `npm run kernel`):
// each file is read and compiled once, and instantiated by whoever runs it.
import fs from 'node:fs';

/** The part of Node's WebAssembly global used here (TypeScript declares it only in lib.dom). */
interface Wasm {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports?: object) => { exports: unknown };
}
const { Module, Instance } = (globalThis as unknown as { WebAssembly: Wasm }).WebAssembly;
const modules = new Map<string, object>();

/** A new instance of wasm/<name>.wasm given `imports`; its exports, typed by the caller. */
export function instantiateKernel<T>(name: string, imports?: object): T {
  let module = modules.get(name);
  if (!module) {
    // wasm/ sits beside src/ and dist/, so this path works from both.
    module = new Module(fs.readFileSync(new URL(`../../wasm/${name}.wasm`, import.meta.url)));
    modules.set(name, module);
  }
  return new Instance(module, imports).exports as T;
}

/** A kernel's own memory, as its exports name it. */
export interface KernelMemory {
  buffer: ArrayBuffer;
  grow(pages: number): number;
}

const PAGE = 65_536;

/** Grows `memory` to hold at least `bytes`. */
export function reserveBytes(memory: KernelMemory, bytes: number): void {
  const pages = Math.ceil(bytes / PAGE);
  const have = memory.buffer.byteLength / PAGE;
  if (pages > have) memory.grow(pages - have);
}
