/** A set of ASCII characters, as a lookup table for `runsOf`. */
export function charClass(chars: string): Uint8Array {
  const table = new Uint8Array(128);
  for (const range of chars.match(/.-.|./gs) ?? []) {
    const from = range.charCodeAt(0);
    const to = range.length === 3 ? range.charCodeAt(2) : from;
    for (let c = from; c <= to; c++) table[c] = 1;
  }
  return table;
}

/**
 * Calls `visit(start, end)` for each maximal run of characters in `table` at least `minLength` long. A plain
 * loop over char codes: for classes as common as letters, a regex would try a match at nearly every position.
 */
export function runsOf(text: string, table: Uint8Array, minLength: number, visit: (start: number, end: number) => void): void {
  const n = text.length;
  let start = -1;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c < 128 && table[c] === 1) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      if (i - start >= minLength) visit(start, i);
      start = -1;
    }
  }
  if (start >= 0 && n - start >= minLength) visit(start, n);
}
