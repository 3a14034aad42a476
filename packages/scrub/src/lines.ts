/**
 * The parts of `text` made of lines that hold a backslash, each with the line before and after it, as sorted,
 * disjoint [start, end) ranges; adjacent or overlapping parts are joined. Each line is read a bounded number of
 * times, so this stays linear however the backslashes fall.
 */
export function linesWithBackslash(text: string): [number, number][] {
  const ranges: [number, number][] = [];
  for (let i = text.indexOf('\\'); i >= 0; ) {
    const lineStart = text.lastIndexOf('\n', i) + 1;
    const start = lineStart < 2 ? 0 : text.lastIndexOf('\n', lineStart - 2) + 1;
    const lineEnd = text.indexOf('\n', i);
    const nextEnd = lineEnd < 0 ? -1 : text.indexOf('\n', lineEnd + 1);
    const end = nextEnd < 0 ? text.length : nextEnd;
    const last = ranges[ranges.length - 1];
    if (last && start <= last[1]) last[1] = end;
    else ranges.push([start, end]);
    if (lineEnd < 0) break;
    i = text.indexOf('\\', lineEnd); // the next line may hold one too, and then its own next line counts
  }
  return ranges;
}
