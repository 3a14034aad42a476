// Category feedback for fused search: when most of the first fused candidates share a catalog category,
// the request is most likely about that category, and its other candidates near the top deserve a lift
// over near-misses from elsewhere (a weather request's BM25 matches on "city" or "forecast" in sport or
// finance APIs). Pure; the service supplies the categories.

/**
 * The category held by at least `quorum` of the first `voters` entries of `categories` (best first), or
 * undefined when none is. Unknown categories (undefined) vote for nothing.
 */
export function votedCategory(
  categories: ReadonlyArray<string | undefined>,
  voters: number,
  quorum: number,
): string | undefined {
  if (!(quorum > voters / 2))
    throw new RangeError(`a quorum must be a majority of the voters, got ${quorum} of ${voters}`);
  const votes = new Map<string, number>();
  for (const c of categories.slice(0, voters)) {
    if (c === undefined) continue;
    const n = (votes.get(c) ?? 0) + 1;
    if (n >= quorum) return c;
    votes.set(c, n);
  }
  return undefined;
}
