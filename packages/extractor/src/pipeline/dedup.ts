import { jaccard, shingles } from '@axle/sdk/similarity';

/**
 * Keeps the first of every group of items whose shingle sets are at least `threshold` similar.
 * Callers order items best-first so the kept one is the strongest. 0.6 matches the server's hold band,
 * so a run never submits a pair the server would hold or refuse as near-duplicates of each other.
 */
export function dedupe<T>(items: readonly T[], textOf: (item: T) => string, threshold = 0.6): T[] {
  const kept: Array<{ item: T; sh: Set<string> }> = [];
  for (const item of items) {
    const sh = shingles(textOf(item));
    if (!kept.some((k) => jaccard(k.sh, sh) >= threshold)) kept.push({ item, sh });
  }
  return kept.map((k) => k.item);
}
