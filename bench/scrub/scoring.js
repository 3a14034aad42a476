// Span matching and table cells shared by the scrubber bench's reports.

/** Whether two [start, end) spans share a character. */
export const overlaps = (a, b) => a.start < b.end && b.start < a.end;
/** n/d to three places in six columns; a dash when d is 0. */
export const ratio = (n, d) => (d === 0 ? '   -  ' : (n / d).toFixed(3).padStart(6));
export const pad = (s, n) => String(s).padEnd(n);
