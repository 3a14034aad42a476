// Throughput of two builds of the scrubber, interleaved in one process so both see the same machine load:
//   node bench/scrub/compare.js <old build's index.js> [<new build's index.js>] [rounds]
// (the new build defaults to packages/scrub/dist). Build an old commit's scrubber with, for example,
// `git worktree add /tmp/old <commit> && cd /tmp/old && npm ci && npx tsc -b packages/scrub`.
// Per document, the least CPU time over the rounds counts; the documents are run.js's (texts.js).
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { throughputDocs, transcriptDocs } from './texts.js';

const [oldPath, newPath = new URL('../../packages/scrub/dist/index.js', import.meta.url).pathname, rounds = '8'] =
  process.argv.slice(2);
if (!oldPath) throw new Error('usage: node bench/scrub/compare.js <old index.js> [<new index.js>] [rounds]');
const load = (p) => import(pathToFileURL(resolve(p)).href);
const builds = { old: await load(oldPath), new: await load(newPath) };

const corpora = { 'corpora text': throughputDocs(), 'repo transcript': transcriptDocs() };

for (const [mode, run] of [
  ['axle (scrubAsync)', (m, d) => m.scrubAsync(d)],
  ['own rules (scrub)', async (m, d) => m.scrub(d)],
]) {
  for (const [name, docs] of Object.entries(corpora)) {
    const best = { old: docs.map(() => Infinity), new: docs.map(() => Infinity) };
    for (let r = 0; r < Number(rounds); r++) {
      // Alternate which build goes first, so neither always runs on the other's garbage.
      const order = r % 2 === 0 ? ['old', 'new'] : ['new', 'old'];
      for (let i = 0; i < docs.length; i++) {
        for (const k of order) {
          const c0 = process.cpuUsage();
          await run(builds[k], docs[i]);
          const c = process.cpuUsage(c0);
          best[k][i] = Math.min(best[k][i], c.user + c.system);
        }
      }
    }
    const mb = docs.reduce((n, d) => n + Buffer.byteLength(d), 0) / 1e6;
    const rate = (k) => (mb / (best[k].reduce((a, b) => a + b, 0) / 1e6)).toFixed(1);
    console.log(
      `${mode.padEnd(20)}${name.padEnd(18)}old ${rate('old').padStart(5)} MB/s   new ${rate('new').padStart(5)} MB/s`,
    );
  }
}
