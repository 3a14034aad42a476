import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../test/support/random.js';
import {
  LSH_BANDS,
  LSH_ROWS,
  MINHASH_SIZE,
  contentHash,
  estimateJaccard,
  jaccard,
  lshBandKeys,
  lshCollisionProbability,
  minhashSignature,
  shingles,
} from '../src/domain/similarity.js';

/** Floats in [0, 1) from the shared seeded sequence. */
function rng(seed: number): () => number {
  const next = seededRandom(seed);
  return () => (next() - 1) / 2147483646;
}

describe('contentHash', () => {
  it('gives one hex sha256 for texts that normalise alike, another when title and body split differently', () => {
    const h = contentHash('Retry on 429', 'Use   exponential backoff.');
    expect(h).toMatch(/^[0-9a-f]{64}$/);
    expect(contentHash('retry ON 429 ', 'use exponential\u200b backoff.')).toBe(h);
    expect(contentHash('Retry on 429 Use', 'exponential backoff.')).not.toBe(h);
    expect(contentHash('Retry on 429', 'Use exponential backoff!')).not.toBe(h);
  });
});

describe('minhashSignature and estimateJaccard', () => {
  it('is deterministic, 128 long by default, and the empty set is all 0xffffffff', () => {
    const sh = shingles('pin the node version in the dockerfile to avoid the openssl error');
    const a = minhashSignature(sh);
    expect(a).toHaveLength(MINHASH_SIZE);
    expect([...minhashSignature(new Set(sh))]).toEqual([...a]);
    // Known values pin the hash functions: a change would silently break every stored band key.
    expect([...a.slice(0, 2)]).toEqual([24089608, 308590472]);
    expect(minhashSignature(new Set()).every((h) => h === 0xffffffff)).toBe(true);
    expect(minhashSignature(sh, 16)).toHaveLength(16);
    expect(() => minhashSignature(sh, 0)).toThrow(RangeError);
    expect(() => minhashSignature(sh, 1.5)).toThrow(RangeError);
  });

  it('estimates Jaccard without bias and within sampling error (sd <= sqrt(J(1-J)/128) <= 0.045)', () => {
    const random = rng(7);
    let err = 0;
    let bias = 0;
    for (let p = 0; p < 200; p++) {
      const base = Array.from({ length: 150 }, () => `w${Math.floor(random() * 2000)}`);
      const rate = random() * 0.3;
      const edited = base.map((w) => (random() < rate ? `w${Math.floor(random() * 2000)}` : w));
      const [sa, sb] = [shingles(base.join(' ')), shingles(edited.join(' '))];
      const d = estimateJaccard(minhashSignature(sa), minhashSignature(sb)) - jaccard(sa, sb);
      err += Math.abs(d);
      bias += d;
    }
    expect(err / 200).toBeLessThan(0.04);
    expect(Math.abs(bias / 200)).toBeLessThan(0.01);
  });

  it('estimates 1 for identical and about 0 for unrelated texts; refuses signatures of different lengths', () => {
    const a = minhashSignature(shingles('alpha beta gamma delta epsilon zeta eta theta'));
    const b = minhashSignature(shingles('one two three four five six seven eight nine'));
    expect(estimateJaccard(a, a)).toBe(1);
    expect(estimateJaccard(a, b)).toBeLessThan(0.05);
    expect(() => estimateJaccard(a, a.slice(0, 64))).toThrow(RangeError);
  });
});

describe('lshBandKeys', () => {
  it('gives one `<band>:<hex rows>` key per band and none for the empty text', () => {
    const keys = lshBandKeys(minhashSignature(shingles('retry the request with exponential backoff on 429')));
    expect(keys).toHaveLength(LSH_BANDS);
    for (const [i, k] of keys.entries()) expect(k).toMatch(new RegExp(`^${i}:[0-9a-f]{${8 * LSH_ROWS}}$`));
    expect(lshBandKeys(minhashSignature(new Set()))).toEqual([]);
    expect(() => lshBandKeys(new Uint32Array(64))).toThrow(RangeError);
  });

  it('has the documented S-curve: >= 0.95 at 0.60, under 0.25 at 0.30', () => {
    expect(lshCollisionProbability(0.6)).toBeGreaterThanOrEqual(0.98);
    expect(lshCollisionProbability(0.85)).toBeGreaterThan(0.9999);
    expect(lshCollisionProbability(0.3)).toBeLessThan(0.25);
    expect(lshCollisionProbability(0)).toBe(0);
    expect(lshCollisionProbability(1)).toBe(1);
  });

  it('finds >= 95% of generated pairs at exact Jaccard >= 0.60 and rarely pairs unrelated texts', () => {
    const random = rng(11);
    const word = () => `t${Math.floor(random() * 3000)}`;
    let above = 0;
    let found = 0;
    let unrelatedHits = 0;
    let last: Set<string> | null = null;
    for (let p = 0; p < 400; p++) {
      const base = Array.from({ length: 60 + Math.floor(random() * 200) }, word);
      const rate = random() * 0.15;
      const edited = base.flatMap((w) => (random() < rate ? [word()] : [w]));
      const [sa, sb] = [shingles(base.join(' ')), shingles(edited.join(' '))];
      const ka = new Set(lshBandKeys(minhashSignature(sa)));
      const collide = lshBandKeys(minhashSignature(sb)).some((k) => ka.has(k));
      if (jaccard(sa, sb) >= 0.6) {
        above++;
        if (collide) found++;
      }
      if (last && [...last].some((k) => ka.has(k))) unrelatedHits++;
      last = ka;
    }
    expect(above).toBeGreaterThan(100);
    expect(found / above).toBeGreaterThanOrEqual(0.95);
    expect(unrelatedHits).toBeLessThanOrEqual(2);
  });
});
