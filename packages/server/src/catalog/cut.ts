/** `s` cut to at most `n` UTF-16 units, ending in "…" when cut, never between the halves of a surrogate pair. */
export function cut(s: string, n: number): string {
  if (s.length <= n) return s;
  const end = /[\uD800-\uDBFF]/.test(s.charAt(n - 2)) ? n - 2 : n - 1;
  return `${s.slice(0, end).trimEnd()}…`;
}
