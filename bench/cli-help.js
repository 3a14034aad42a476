// `axle --help` as a person sees it: `node packages/cli/bin/run.js --help` as a whole process, spawn to exit,
// alternating with `node -e 0` (the floor any Node command has on this machine at this load). The target
// is a median of at most 500 ms idle; the ratio to `node -e 0` says how much of it is the CLI's own. Run
// alone (`node bench/cli-help.js`) or from bench/run.js.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { timeProcess } from './hook.js';

const CLI = fileURLToPath(new URL('../packages/cli/bin/run.js', import.meta.url));
export const HELP_TARGET_MS = 500;

/** Medians over `runs` help runs and as many `node -e 0` runs interleaved with them, in a throwaway HOME. */
export async function measureHelp({ runs = 15 } = {}) {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'axle-bench-help-'));
  try {
    await timeProcess(home, '', [CLI, '--help']); // warm the file cache
    const help = [];
    const bare = [];
    for (let i = 0; i < runs; i++) {
      const r = await timeProcess(home, '', [CLI, '--help']);
      if (r.code !== 0) throw new Error(`axle --help exited with ${r.code}`);
      help.push(r.ms);
      bare.push((await timeProcess(home, '', ['-e', '0'])).ms);
    }
    const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const m = median(help);
    const n = median(bare);
    return { runs, median: m, nodeMedian: n, ratio: m / n };
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
}

export const formatHelp = (r) =>
  `axle --help, whole process over ${r.runs} runs: median ${r.median.toFixed(0)} ms; node -e 0 median ${r.nodeMedian.toFixed(0)} ms; ratio ${r.ratio.toFixed(2)}`;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const r = await measureHelp({ runs: Number(process.argv[2] ?? 15) });
  const ok = r.median <= HELP_TARGET_MS;
  console.log(formatHelp(r));
  console.log(`${ok ? 'PASS' : 'FAIL'}  axle --help median ${r.median.toFixed(0)} ms <= ${HELP_TARGET_MS}`);
  process.exitCode = ok ? 0 : 1;
}
