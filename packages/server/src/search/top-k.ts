export interface Scored {
  row: number;
  score: number;
}

/**
 * The `k` best rows by `scoreOf(row)` among `rows`, at least `min`, best first (ties by row, so the
 * order is stable). A bounded min-heap: one pass, O(rows log k), no sort of every score.
 */
export function topK(
  rows: number,
  k: number,
  min: number,
  scoreOf: (row: number) => number,
  keep?: (row: number) => boolean,
): Scored[] {
  if (k <= 0) return [];
  const heap: Scored[] = [];
  // The heap's root is the worst kept row: lower score, or the later row on a tie.
  const worse = (a: Scored, b: Scored) => a.score < b.score || (a.score === b.score && a.row > b.row);
  const swap = (i: number, j: number) => {
    const t = heap[i]!;
    heap[i] = heap[j]!;
    heap[j] = t;
  };
  for (let row = 0; row < rows; row++) {
    if (keep && !keep(row)) continue;
    const score = scoreOf(row);
    if (!(score >= min)) continue;
    // Rows come in increasing order, so once the heap is full a row tying its root is worse too.
    if (heap.length === k && score <= heap[0]!.score) continue;
    const item = { row, score };
    if (heap.length < k) {
      heap.push(item);
      for (let i = heap.length - 1; i > 0; ) {
        const parent = (i - 1) >> 1;
        if (!worse(heap[i]!, heap[parent]!)) break;
        swap(i, parent);
        i = parent;
      }
    } else {
      heap[0] = item;
      for (let i = 0; ; ) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < heap.length && worse(heap[l]!, heap[m]!)) m = l;
        if (r < heap.length && worse(heap[r]!, heap[m]!)) m = r;
        if (m === i) break;
        swap(i, m);
        i = m;
      }
    }
  }
  return heap.sort((a, b) => b.score - a.score || a.row - b.row);
}
