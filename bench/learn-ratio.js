// POST /learn latency at 1,000 and at 100,000 learnings, the two stores measured in turn (S L L S ...) so
// the machine's other load falls on both alike; p50 ratio a pair. `node bench/learn-ratio.js [pairs]`.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildStore, largeStore, learnLatency, SMALL_LEARNINGS } from './lib/knowledge-bench.js';
import { ROOT } from './lib/server.js';

const PAIRS = Number(process.argv[2] ?? 3);
const { dir: largeDir } = await largeStore(path.join(ROOT, 'node_modules/.cache/axle-bench-learnings'));
const smallDir = fs.mkdtempSync(path.join(os.tmpdir(), 'axle-bench-learnings-'));
try {
  await buildStore(smallDir, SMALL_LEARNINGS, { vectors: false });
  for (let i = 0; i < PAIRS; i++) {
    const r = {};
    for (const [name, dir] of i % 2 === 0
      ? [
          ['small', smallDir],
          ['large', largeDir],
        ]
      : [
          ['large', largeDir],
          ['small', smallDir],
        ])
      r[name] = await learnLatency(dir, name === 'small' ? SMALL_LEARNINGS : 100_000);
    const f = (l) => `p50 ${l.p50.toFixed(1)} ms, p99 ${l.p99.toFixed(1)} ms`;
    console.log(
      `pair ${i + 1}: 1,000 ${f(r.small)}; 100,000 ${f(r.large)}; p50 ratio ${(r.large.p50 / r.small.p50).toFixed(2)}`,
    );
  }
} finally {
  fs.rmSync(smallDir, { recursive: true, force: true });
}
