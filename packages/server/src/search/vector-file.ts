// A compact file of precomputed skill vectors, shipped beside the bundled catalog so a first
// start does not spend minutes of CPU embedding it. Vectors are keyed by text hash (see
// embedding-text.ts), so after a catalog edit only the changed skills are computed at start.
//
// Layout: "AXV1", u32 LE header length, header JSON {model, dim, count, hashes[]}, then count
// f32 LE scales, then count x dim int8 components (component = int8 * scale; renormalised on read).
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { normalize } from './embedding-text.js';
import { type QuantizedRows, quantizeInto } from '../domain/quantize.js';

export const BUNDLED_VECTORS = fileURLToPath(new URL('../../catalog/skills.vectors.bin', import.meta.url));
const MAGIC = 'AXV1';

interface Header {
  model: string;
  dim: number;
  count: number;
  hashes: string[];
}

/** A vector to write: as floats (quantised on writing), or as codes already quantised, copied as they are. */
export type VectorEntry = { hash: string; vector: Float32Array } | { hash: string; codes: Int8Array; scale: number };

export function encodeVectors(model: string, dim: number, entries: readonly VectorEntry[]): Buffer {
  const header = Buffer.from(
    JSON.stringify({ model, dim, count: entries.length, hashes: entries.map((e) => e.hash) } satisfies Header),
  );
  const scales = Buffer.alloc(4 * entries.length);
  const data = Buffer.alloc(dim * entries.length);
  const codes = new Int8Array(data.buffer, data.byteOffset, data.length);
  entries.forEach((entry, i) => {
    if ('vector' in entry) scales.writeFloatLE(quantizeInto(entry.vector, codes, i * dim), 4 * i);
    else {
      codes.set(entry.codes, i * dim);
      scales.writeFloatLE(entry.scale, 4 * i);
    }
  });
  const len = Buffer.alloc(4);
  len.writeUInt32LE(header.length);
  return Buffer.concat([Buffer.from(MAGIC), len, header, scales, data]);
}

/** Text hash -> unit vector, for `model` only; an empty map when the file is absent or for another model. */
export function decodeVectors(buf: Buffer, model: string): Map<string, Float32Array> {
  const out = new Map<string, Float32Array>();
  if (buf.length < 8 || buf.toString('latin1', 0, 4) !== MAGIC) throw new Error('not a vectors file');
  const headerLength = buf.readUInt32LE(4);
  const header = JSON.parse(buf.toString('utf8', 8, 8 + headerLength)) as Header;
  if (header.model !== model) return out;
  const { dim, count, hashes } = header;
  const scalesAt = 8 + headerLength;
  const dataAt = scalesAt + 4 * count;
  if (buf.length !== dataAt + dim * count || hashes.length !== count) throw new Error('truncated vectors file');
  for (let i = 0; i < count; i++) {
    const scale = buf.readFloatLE(scalesAt + 4 * i);
    const v = new Float32Array(dim);
    for (let j = 0; j < dim; j++) v[j] = buf.readInt8(dataAt + i * dim + j) * scale;
    out.set(hashes[i]!, normalize(v));
  }
  return out;
}

export function readVectorsFile(file: string, model: string): Map<string, Float32Array> {
  if (!fs.existsSync(file)) return new Map();
  return decodeVectors(fs.readFileSync(file), model);
}

/**
 * The codes of the vectors of `hashes` found in `file` (for `model`), copied as stored (no float
 * round trip): row i of `rows` is `hashes[found[i]]`. Nothing when the file is absent or for another model.
 */
export function readQuantizedRows(
  file: string,
  model: string,
  hashes: readonly string[],
): { found: number[]; rows: QuantizedRows } {
  const none = { found: [], rows: { codes: new Int8Array(0), scales: new Float32Array(0) } };
  if (!fs.existsSync(file) || hashes.length === 0) return none;
  const buf = fs.readFileSync(file);
  if (buf.length < 8 || buf.toString('latin1', 0, 4) !== MAGIC) throw new Error('not a vectors file');
  const headerLength = buf.readUInt32LE(4);
  const header = JSON.parse(buf.toString('utf8', 8, 8 + headerLength)) as Header;
  if (header.model !== model) return none;
  const { dim, count } = header;
  const scalesAt = 8 + headerLength;
  const dataAt = scalesAt + 4 * count;
  if (buf.length !== dataAt + dim * count || header.hashes.length !== count) throw new Error('truncated vectors file');
  const at = new Map(header.hashes.map((h, i) => [h, i]));
  const found: number[] = [];
  for (const [i, h] of hashes.entries()) if (at.has(h)) found.push(i);
  const codes = new Int8Array(found.length * dim);
  const scales = new Float32Array(found.length);
  for (const [row, i] of found.entries()) {
    const from = at.get(hashes[i]!)!;
    scales[row] = buf.readFloatLE(scalesAt + 4 * from);
    codes.set(new Int8Array(buf.buffer, buf.byteOffset + dataAt + from * dim, dim), row * dim);
  }
  return { found, rows: { codes, scales } };
}

/**
 * The entries of `hashes` that `file` holds (for `model`), codes and scale as stored: written again, they give the
 * same bytes, where a float round trip would flip codes at rounding edges. `kept` holds their indexes in `hashes`.
 */
export function storedEntries(
  file: string,
  model: string,
  hashes: readonly string[],
): { kept: Set<number>; entries: VectorEntry[] } {
  const { found, rows } = readQuantizedRows(file, model, hashes);
  const dim = found.length === 0 ? 0 : rows.codes.length / found.length;
  const entries = found.map((i, row) => ({
    hash: hashes[i]!,
    codes: rows.codes.subarray(row * dim, (row + 1) * dim),
    scale: rows.scales[row]!,
  }));
  return { kept: new Set(found), entries };
}
