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
 * Calls `visit(start, end)`, in order, for each maximal run of characters in `table` at least `minLength` long,
 * in the whole text or, if given, only inside `ranges` ([start, end) pairs flattened into one array, ascending;
 * runs are cut at their ends). A plain loop over char codes (for classes as common as letters, a regex would try a
 * match at nearly every position) that probes every `minLength`-th character only: a run that long must contain a
 * probe. A probe in the class is grown back to its run's start; the run is then long enough only if every
 * character up to `minLength` from that start is in the class, which is read from the far end back, so that a
 * short run usually costs one read past the probe. Outside long runs most characters are never read.
 */
export function runsOf(
  text: string,
  table: Uint8Array,
  minLength: number,
  visit: (start: number, end: number) => void,
  ranges: readonly number[] = [0, text.length],
): void {
  const step = Math.max(1, minLength);
  // The class test is written out at each use rather than called: a closure here is not reliably inlined, and
  // this loop reads most characters of the text for some classes.
  for (let r = 0; r < ranges.length; r += 2) {
    const to = ranges[r + 1];
    let scannedTo = ranges[r]; // no run reaching back before this position is still to be found
    for (let i = scannedTo + step - 1; i < to; ) {
      const probe = text.charCodeAt(i);
      if (probe >= 128 || table[probe] === 0) {
        i += step;
        continue;
      }
      let start = i;
      while (start > scannedTo) {
        const c = text.charCodeAt(start - 1);
        if (c >= 128 || table[c] === 0) break;
        start--;
      }
      const last = start + step - 1; // the run is long enough if it reaches here
      if (last >= to) break;
      let gap = last;
      while (gap > i) {
        const c = text.charCodeAt(gap);
        if (c >= 128 || table[c] === 0) break;
        gap--;
      }
      if (gap > i) {
        // A short run: the next long one starts after the gap.
        scannedTo = gap + 1;
        i = gap + step;
        continue;
      }
      let end = last + 1;
      while (end < to) {
        const c = text.charCodeAt(end);
        if (c >= 128 || table[c] === 0) break;
        end++;
      }
      visit(start, end);
      scannedTo = end;
      i = end + step;
    }
  }
}

/** JavaScript's `\s` (tested against it for every UTF-16 code unit). */
export function isSpace(c: number): boolean {
  if (c <= 32) return c === 32 || (c >= 9 && c <= 13);
  if (c < 0xa0) return false;
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}
