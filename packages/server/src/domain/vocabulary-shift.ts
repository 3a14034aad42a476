// Skill vectors moved toward how developers ask for them. Each developer-vocabulary line (domain/developer-vocabulary.ts)
// owns the records its catalog terms rank first; an owned record's vector gains a share of the mean vector of its
// lines' phrases, so a request worded like a line's phrases (or near them) finds the record in the sentence model's
// ranking even when the record says only the catalog's word ("filesystem") or a product's name. Pure: vectors in,
// vectors out.

/** Records a line owns: the first this many its terms rank by BM25. */
export const OWNED_PER_LINE = 5;
/** Lines whose phrases move one record, at most: those ranking it highest. */
export const LINES_PER_RECORD = 2;
/** Length of the added direction against the record's own unit vector. */
export const SHIFT_WEIGHT = 0.7;

/** Scales `v` to unit length in place and returns it (a zero vector stays zero). */
function unit(v: Float32Array): Float32Array {
  let sum = 0;
  for (const x of v) sum += x * x;
  const norm = Math.sqrt(sum);
  if (norm > 0) for (let i = 0; i < v.length; i++) v[i]! /= norm;
  return v;
}

/** The unit mean of unit vectors (a line's phrases), or undefined for none. */
export function meanDirection(vectors: readonly Float32Array[]): Float32Array | undefined {
  const first = vectors[0];
  if (first === undefined) return undefined;
  const sum = new Float32Array(first.length);
  for (const v of vectors) for (let i = 0; i < sum.length; i++) sum[i]! += v[i]!;
  return unit(sum);
}

/**
 * For each record a line owns, the lines that move it: `ranked[l]` is line l's owned records, best first. A record
 * keeps the `perRecord` lines that rank it highest (ties: the earlier line), so a record many lines own is not
 * averaged into a generic direction.
 */
export function linesByRecord(
  ranked: readonly (readonly string[])[],
  perRecord = LINES_PER_RECORD,
): Map<string, number[]> {
  const byRecord = new Map<string, Array<[rank: number, line: number]>>();
  for (const [line, ids] of ranked.entries())
    for (const [rank, id] of ids.entries()) {
      const list = byRecord.get(id) ?? [];
      list.push([rank, line]);
      byRecord.set(id, list);
    }
  const out = new Map<string, number[]>();
  for (const [id, list] of byRecord)
    out.set(
      id,
      list
        .sort((a, b) => a[0] - b[0] || a[1] - b[1])
        .slice(0, perRecord)
        .map(([, line]) => line),
    );
  return out;
}

/** `vector` (a unit vector) moved `weight` toward the unit mean of `directions`, as a unit vector; unchanged for none. */
export function shiftedVector(
  vector: Float32Array,
  directions: readonly Float32Array[],
  weight = SHIFT_WEIGHT,
): Float32Array {
  const toward = meanDirection(directions);
  const out = Float32Array.from(vector);
  if (toward === undefined || weight === 0) return out;
  for (let i = 0; i < out.length; i++) out[i]! += weight * toward[i]!;
  return unit(out);
}
