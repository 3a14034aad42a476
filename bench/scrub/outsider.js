// Scores the scrubber on an outsider set (corpora/outsider/*.jsonl): recall per kind (a positive counts when
// redactions cover every character of every span) and decoys with any redaction, for the fast tier (`scrubAsync`)
// and the thorough tier. Reads this worktree's build, not the `@axle/scrub` that node_modules links to.
// node bench/scrub/outsider.js bench/scrub/corpora/outsider/<file>.jsonl [--verbose]
import { readFileSync } from 'node:fs';
import { pad, ratio } from './scoring.js';

const { scrubAsync } = await import(new URL('../../packages/scrub/dist/index.js', import.meta.url).href);
const file = process.argv[2];
const verbose = process.argv.includes('--verbose');
const samples = readFileSync(file, 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l));

const covered = (findings, span) => {
  const marks = new Uint8Array(span.end - span.start);
  for (const f of findings) {
    for (let i = Math.max(f.start, span.start); i < Math.min(f.end, span.end); i++) marks[i - span.start] = 1;
  }
  return marks.every((m) => m === 1);
};

for (const tier of ['fast', 'thorough']) {
  const byKind = new Map();
  const misses = [];
  let fp = 0;
  let decoys = 0;
  let found = 0;
  let positives = 0;
  for (const s of samples) {
    const { findings } = await scrubAsync(s.text, tier === 'thorough' ? { tier: 'thorough' } : undefined);
    if (s.decoy) {
      decoys++;
      if (findings.length) {
        fp++;
        misses.push(
          `FP ${s.id} ${s.kind}: ${findings.map((f) => `${f.type}=${JSON.stringify(s.text.slice(f.start, f.end))}`).join(', ')}`,
        );
      }
      continue;
    }
    const ok = s.spans.every((sp) => covered(findings, sp));
    positives++;
    if (ok) found++;
    else {
      const partial = s.spans.map((sp) =>
        covered(findings, sp)
          ? 'ok'
          : findings.some((f) => f.start < sp.end && sp.start < f.end)
            ? 'partial'
            : 'missed',
      );
      misses.push(
        `MISS ${s.id} ${s.kind} (${s.context}): ${partial.join(',')} ${s.spans.map((sp) => sp.value.slice(0, 50)).join(' | ')}`,
      );
    }
    const k = byKind.get(s.kind) ?? { n: 0, ok: 0 };
    k.n++;
    if (ok) k.ok++;
    byKind.set(s.kind, k);
  }
  console.log(`\n${tier} tier (scrubAsync${tier === 'thorough' ? ", {tier: 'thorough'}" : ''}) on ${file}`);
  console.log(
    `positives found ${found}/${positives} (${ratio(found, positives).trim()}), decoys flagged ${fp}/${decoys}`,
  );
  for (const [kind, k] of [...byKind].sort()) console.log(`  ${pad(kind, 26)} ${k.ok}/${k.n}`);
  if (verbose || tier === 'fast') for (const m of misses) console.log(`  ${m}`);
}
