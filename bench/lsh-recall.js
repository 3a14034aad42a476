// LSH recall against exact Jaccard on generated near-duplicate pairs: each pair is a generated text and a
// copy edited at a random rate (words substituted, deleted, inserted), so the pairs' similarities spread
// over 0.2..1. Recall is the share of pairs at exact Jaccard >= 0.60 that share at least one LSH band key.
// Deterministic (seeded), a few seconds. `node bench/lsh-recall.js` prints it; bench/run.js calls lshRecall.
import { fileURLToPath } from 'node:url';
import {
  jaccard,
  lshBandKeys,
  lshCollisionProbability,
  minhashSignature,
  shingles,
} from '../packages/server/dist/domain/similarity.js';
import { prng } from './lib/generate.js';

export const TARGET_LSH_RECALL = 0.95;
const HOLD_THRESHOLD = 0.6;

const COMMON = (
  'the a to of and in is for with on when that it by from this not use run set add fix error after before ' +
  'request response server client config file build test version cache timeout retry header token query ' +
  'database index table column row key value json api endpoint port process memory thread worker queue'
).split(' ');
const SYLLABLES = 'ka lo mi nu re sa ti vo pex dri zon ful gar hix jun quo bel cra dun fim'.split(' ');

function vocabulary(random, size) {
  const out = new Set();
  while (out.size < size) {
    const n = 2 + Math.floor(random() * 3);
    let w = '';
    for (let i = 0; i < n; i++) w += SYLLABLES[Math.floor(random() * SYLLABLES.length)];
    out.add(w);
  }
  return [...out];
}

/**
 * Generates `pairs` (text, edited copy) pairs, computes exact Jaccard and band-key collision for each, and
 * reports recall at >= 0.60 with the S-curve's expectation, plus the candidate rate of dissimilar pairs.
 */
export function lshRecall({ pairs = 3000, seed = 42 } = {}) {
  const started = performance.now();
  const random = prng(seed);
  const vocab = vocabulary(random, 4000);
  const word = () =>
    random() < 0.35 ? COMMON[Math.floor(random() * COMMON.length)] : vocab[Math.floor(random() * vocab.length)];
  const sig = (text) => new Set(lshBandKeys(minhashSignature(shingles(text))));
  let above = 0;
  let found = 0;
  let expected = 0;
  let near = 0;
  let nearFound = 0;
  let below = 0;
  let belowCandidates = 0;
  let unrelated = 0;
  let unrelatedCandidates = 0;
  let previous = null;
  for (let p = 0; p < pairs; p++) {
    const length = 40 + Math.floor(random() * 360);
    const base = Array.from({ length }, word);
    const rate = random() * 0.2;
    const edited = [];
    for (const w of base) {
      const r = random();
      if (r < rate / 3) edited.push(word());
      else if (r < (2 * rate) / 3) continue;
      else if (r < rate) edited.push(w, word());
      else edited.push(w);
    }
    const a = base.join(' ');
    const b = edited.join(' ');
    const exact = jaccard(shingles(a), shingles(b));
    const keysA = sig(a);
    const collide = [...sig(b)].some((k) => keysA.has(k));
    if (exact >= HOLD_THRESHOLD) {
      above++;
      expected += lshCollisionProbability(exact);
      if (collide) found++;
      if (exact < 0.7) {
        near++;
        if (collide) nearFound++;
      }
    } else if (exact < 0.3) {
      below++;
      if (collide) belowCandidates++;
    }
    if (previous) {
      unrelated++;
      if ([...previous].some((k) => keysA.has(k))) unrelatedCandidates++;
    }
    previous = keysA;
  }
  return {
    pairs,
    pairsAbove: above,
    recall: above === 0 ? 0 : found / above,
    pairsNear: near,
    recallNear: near === 0 ? 0 : nearFound / near,
    expectedRecall: above === 0 ? 0 : expected / above,
    candidateRateBelow030: below === 0 ? 0 : belowCandidates / below,
    candidateRateUnrelated: unrelated === 0 ? 0 : unrelatedCandidates / unrelated,
    ms: performance.now() - started,
  };
}

export function formatLshRecall(r) {
  const f3 = (x) => x.toFixed(3);
  return [
    `LSH recall (32 bands x 4 rows of 128 MinHashes) on ${r.pairs} generated pairs, ` +
      `${r.pairsAbove} at Jaccard >= 0.60:`,
    `  recall ${f3(r.recall)} (S-curve expectation ${f3(r.expectedRecall)}, target >= ${TARGET_LSH_RECALL})`,
    `  recall at 0.60..0.70 ${f3(r.recallNear)} over ${r.pairsNear} pairs ` +
      `(S-curve at 0.60: ${f3(lshCollisionProbability(0.6))})`,
    `  candidate rate: pairs under 0.30 ${f3(r.candidateRateBelow030)}, ` +
      `unrelated texts ${f3(r.candidateRateUnrelated)}`,
    `  ${(r.ms / 1000).toFixed(1)} s`,
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const r = lshRecall();
  console.log(formatLshRecall(r));
  console.log(
    `${r.recall >= TARGET_LSH_RECALL ? 'PASS' : 'FAIL'}  LSH recall ${r.recall.toFixed(3)} >= ${TARGET_LSH_RECALL}`,
  );
  process.exitCode = r.recall >= TARGET_LSH_RECALL ? 0 : 1;
}
