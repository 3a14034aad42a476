/**
 * Symmetric int8 quantisation of one vector: `codes[at + j] = round(v[j] / scale)` with
 * `scale = max |v[j]| / 127`, so every component keeps about 7 bits relative to the row's largest.
 * Used for the bundled vectors file and for the semantic index kept in memory. Returns the scale.
 */
export function quantizeInto(v: ArrayLike<number>, codes: Int8Array, at: number): number {
  let max = 0;
  for (let j = 0; j < v.length; j++) max = Math.max(max, Math.abs(v[j]!));
  const scale = max > 0 ? max / 127 : 1;
  for (let j = 0; j < v.length; j++) codes[at + j] = Math.round(v[j]! / scale);
  return scale;
}

/** Rows of int8 codes: row i is `codes[i * dim, (i + 1) * dim)`, component j worth `codes[i * dim + j] * scales[i]`. */
export interface QuantizedRows {
  codes: Int8Array;
  scales: Float32Array;
}
