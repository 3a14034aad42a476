/** Shannon entropy in bits per character. */
export function shannonEntropy(s: string): number {
  if (s.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const ch of s) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let h = 0;
  for (const c of counts.values()) {
    const p = c / s.length;
    h -= p * Math.log2(p);
  }
  return h;
}

/**
 * Whether a value looks machine-generated rather than a word, identifier or number:
 * long enough, mixes letters and digits, and has enough entropy for its length.
 */
export function looksRandom(s: string, minLength = 8): boolean {
  if (s.length < minLength) return false;
  if (!/[A-Za-z]/.test(s) || !/\d/.test(s)) return false;
  // Random base62 text of length n has entropy near log2(min(n, 62)); demand a good fraction of that.
  const ceiling = Math.log2(Math.min(s.length, 62));
  return shannonEntropy(s) >= Math.min(3, ceiling * 0.7);
}
