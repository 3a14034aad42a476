/** A deterministic pseudo-random sequence (Park–Miller), so randomised tests repeat exactly. */
export function seededRandom(seed: number): () => number {
  return () => {
    seed = (seed * 48271) % 2147483647;
    return seed;
  };
}
