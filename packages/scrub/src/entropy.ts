const counts = new Uint32Array(65536);

/** Shannon entropy in bits per UTF-16 code unit. */
export function shannonEntropy(s: string): number {
  if (s.length === 0) return 0;
  for (let i = 0; i < s.length; i++) counts[s.charCodeAt(i)]++;
  let h = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const n = counts[c];
    if (n === 0) continue; // already counted
    const p = n / s.length;
    h -= p * Math.log2(p);
    counts[c] = 0;
  }
  return h;
}

/**
 * Whether a value looks machine-generated rather than a word, identifier or number:
 * long enough, mixes letters and digits, and has enough entropy for its length (at least `minEntropy` bits
 * per character, if given, so that a caller with a stricter bound computes the entropy once).
 */
export function looksRandom(s: string, minLength = 8, minEntropy = 0): boolean {
  if (s.length < minLength) return false;
  if (!/[A-Za-z]/.test(s) || !/\d/.test(s)) return false;
  // Random base62 text of length n has entropy near log2(min(n, 62)); demand a good fraction of that.
  const ceiling = Math.log2(Math.min(s.length, 62));
  return shannonEntropy(s) >= Math.max(minEntropy, Math.min(3, ceiling * 0.7));
}
