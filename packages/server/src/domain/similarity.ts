// Near-duplicate detection: exact duplicates by a hash of normalised text, near-duplicates by word-shingle
// Jaccard similarity, found without scanning the catalog through MinHash signatures and LSH band keys.
import { normalizeForHash } from '@axle/sdk/similarity';
import { sha256Hex } from './ids.js';

export { jaccard, shingles } from '@axle/sdk/similarity';

/** Exact-duplicate key: hex SHA-256 of the normalised title and body. */
export function contentHash(title: string, body: string): string {
  return sha256Hex(`${normalizeForHash(title)}\n${normalizeForHash(body)}`);
}

/** Murmur3's 32-bit finaliser: full avalanche, so nearby inputs give unrelated outputs. */
function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Two independent 32-bit FNV-1a hashes of a string's UTF-16 units (different offset bases), finalised. */
function hashPair(s: string): [number, number] {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x01000193) ^ (b >>> 15);
  }
  return [fmix32(a), fmix32(b) | 1];
}

/** Fixed per-hash seeds (splitmix32 from a constant), so signatures are the same in every process. */
const SEEDS: Uint32Array = (() => {
  const out = new Uint32Array(1024);
  let state = 0x9e3779b9;
  for (let i = 0; i < out.length; i++) {
    state = (state + 0x9e3779b9) >>> 0;
    out[i] = fmix32(state);
  }
  return out;
})();

export const MINHASH_SIZE = 128;

/**
 * MinHash signature: for each of `numHashes` seeded hash functions, the least hash over the shingles.
 * Hash i of a shingle is fmix32(h1 + i·h2 XOR seed_i) (double hashing), so the cost is one string hash per
 * shingle. Deterministic across processes. The empty set gives all 0xffffffff.
 */
export function minhashSignature(sh: ReadonlySet<string>, numHashes = MINHASH_SIZE): Uint32Array {
  if (!Number.isInteger(numHashes) || numHashes < 1 || numHashes > SEEDS.length) {
    throw new RangeError(`numHashes must be an integer in 1..${SEEDS.length}, got ${numHashes}`);
  }
  const sig = new Uint32Array(numHashes).fill(0xffffffff);
  for (const s of sh) {
    const [h1, h2] = hashPair(s);
    for (let i = 0; i < numHashes; i++) {
      const h = fmix32((h1 + Math.imul(i, h2)) ^ SEEDS[i]!);
      if (h < sig[i]!) sig[i] = h;
    }
  }
  return sig;
}

/** Fraction of positions where two signatures agree: an unbiased estimate of the Jaccard similarity. */
export function estimateJaccard(a: Uint32Array, b: Uint32Array): number {
  if (a.length !== b.length) throw new RangeError(`signature lengths differ: ${a.length} and ${b.length}`);
  if (a.length === 0) return 0;
  let same = 0;
  for (let i = 0; i < a.length; i++) if (a[i] === b[i]) same++;
  return same / a.length;
}

/**
 * LSH banding: 32 bands of 4 rows over a 128-hash signature. Two texts share at least one band key with
 * probability P(s) = 1 - (1 - s^4)^32 at Jaccard similarity s (the S-curve):
 *   s = 0.30 → 0.23,  0.40 → 0.57,  0.50 → 0.88,  0.60 → 0.988,  0.70 → 0.9995,  0.85 → ≈1.
 * So a pair at the hold threshold (0.60) is found with probability ≥ 0.98, while pairs below 0.3 rarely
 * become candidates; the exact Jaccard of each candidate then decides.
 */
export const LSH_BANDS = 32;
export const LSH_ROWS = 4;

/** Probability that a pair of Jaccard similarity s shares a band key (the S-curve above). */
export function lshCollisionProbability(s: number, bands = LSH_BANDS, rows = LSH_ROWS): number {
  return 1 - (1 - s ** rows) ** bands;
}

/**
 * One key per band, `<band>:<rows as hex>`; texts sharing any key are near-duplicate candidates. The
 * empty text's signature gives no keys: it is nobody's near-duplicate.
 */
export function lshBandKeys(sig: Uint32Array): string[] {
  if (sig.length !== LSH_BANDS * LSH_ROWS) {
    throw new RangeError(`signature must have ${LSH_BANDS * LSH_ROWS} hashes, got ${sig.length}`);
  }
  if (sig.every((h) => h === 0xffffffff)) return [];
  const keys: string[] = [];
  for (let b = 0; b < LSH_BANDS; b++) {
    let key = `${b}:`;
    for (let r = 0; r < LSH_ROWS; r++) key += sig[b * LSH_ROWS + r]!.toString(16).padStart(8, '0');
    keys.push(key);
  }
  return keys;
}

/** The band keys a text's shingles are filed under (MinHash, then LSH). */
export const bandKeysOf = (sh: ReadonlySet<string>): string[] => lshBandKeys(minhashSignature(sh));
