import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';

// The helper's compiled module, run inside a real worker thread: only that thread's priority moves.
const HELPER = new URL('../dist/search/thread-priority.js', import.meta.url).href;

describe.runIf(process.platform === 'linux')('lowerThreadPriority (Linux)', () => {
  it('lowers the calling worker thread alone, not the process', async () => {
    const before = os.getPriority();
    const worker = new Worker(
      `import('${HELPER}').then(async ({ lowerThreadPriority }) => {
         const { parentPort } = await import('node:worker_threads');
         const fs = await import('node:fs');
         const os = await import('node:os');
         const applied = lowerThreadPriority(7);
         const tid = Number(fs.readlinkSync('/proc/thread-self').split('/').pop());
         parentPort.postMessage({ applied, own: os.getPriority(tid), tid });
       });`,
      { eval: true },
    );
    const reply = await new Promise<{ applied: boolean; own: number; tid: number }>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    await worker.terminate();
    expect(reply).toMatchObject({ applied: true, own: 7 });
    expect(reply.tid).not.toBe(process.pid);
    expect(os.getPriority()).toBe(before);
  });
});
