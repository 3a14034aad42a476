// Reciprocal-rank fusion: each ranking contributes 1 / (k + rank) for every id it lists (rank
// counted from 1), so agreement between rankers beats a high place in one of them, and no
// ranker's raw scores (BM25, cosine) need to be comparable.

/** The constant of Cormack, Clarke and Büttcher (SIGIR 2009). */
export const RRF_K = 60;

export interface FusedHit {
  id: string;
  /** Sum of weight / (k + rank) over the rankings. */
  score: number;
  /**
   * score / the best score possible (first in every ranking given), in 0..1: 1 means first
   * everywhere. An empty ranking still counts, so a lexical miss lowers relevance; callers
   * that did not run a ranker leave it out.
   */
  relevance: number;
}

/**
 * Fuses rankings (ids, best first), each counted with its weight (1 by default). An id repeated inside
 * one ranking counts at its first place.
 * Ties are broken by the best single rank, then by first appearance (rankings in order), so the
 * output is deterministic.
 */
export function reciprocalRankFusion(
  rankings: ReadonlyArray<readonly string[]>,
  k = RRF_K,
  weights: readonly number[] = rankings.map(() => 1),
): FusedHit[] {
  if (!(k > 0) || !Number.isFinite(k)) throw new RangeError(`k must be a positive number, got ${k}`);
  if (weights.length !== rankings.length || weights.some((w) => !(w >= 0) || !Number.isFinite(w)))
    throw new RangeError('one finite, non-negative weight per ranking');
  const acc = new Map<string, { score: number; bestRank: number; order: number }>();
  for (const [r, ranking] of rankings.entries()) {
    const seen = new Set<string>();
    for (const id of ranking) {
      if (seen.has(id)) continue;
      seen.add(id);
      const rank = seen.size; // 1-based place among distinct ids
      const entry = acc.get(id) ?? { score: 0, bestRank: Number.POSITIVE_INFINITY, order: acc.size };
      entry.score += weights[r]! / (k + rank);
      entry.bestRank = Math.min(entry.bestRank, rank);
      acc.set(id, entry);
    }
  }
  const best = weights.reduce((a, w) => a + w, 0) / (k + 1);
  return [...acc.entries()]
    .sort(([, a], [, b]) => b.score - a.score || a.bestRank - b.bestRank || a.order - b.order)
    .map(([id, e]) => ({ id, score: e.score, relevance: Math.min(1, e.score / best) }));
}
