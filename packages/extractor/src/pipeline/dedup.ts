/** Word k-shingles of normalized text; the same similarity family the server uses for near-duplicates. */
export function shingles(text: string, k = 3): Set<string> {
  const words = text.toLowerCase().match(/[a-z0-9_]+/g) ?? [];
  const out = new Set<string>();
  if (words.length < k) {
    if (words.length > 0) out.add(words.join(' '));
    return out;
  }
  for (let i = 0; i + k <= words.length; i++) out.add(words.slice(i, i + k).join(' '));
  return out;
}

export function jaccard(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  let inter = 0;
  for (const s of a) if (b.has(s)) inter++;
  return inter / (a.size + b.size - inter);
}

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
