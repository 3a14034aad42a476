import { createHash } from 'node:crypto';

/** prev_hash of the first entry. */
export const GENESIS_HASH = '0'.repeat(64);

/** The fields an entry's hash covers, exactly as stored (data parsed back from its JSON text). */
export interface AuditFields {
  prev_hash: string;
  id: string;
  seq: number;
  ts: number;
  actor: string;
  action: string;
  subject: string | null;
  data: Record<string, unknown>;
}

/** A stored row: data is the JSON text, hash the stored digest. */
export interface AuditRow extends Omit<AuditFields, 'data'> {
  data: string;
  hash: string;
}

export type TamperReason = 'seq_gap' | 'prev_hash_mismatch' | 'hash_mismatch' | 'malformed_data';

/**
 * JSON with object keys sorted at every level, so the same value always serialises to the same
 * bytes regardless of insertion order (a hash over it is reproducible by any verifier).
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

export function hashEntry(fields: AuditFields): string {
  return createHash('sha256').update(canonicalJson(fields)).digest('hex');
}

/**
 * Checks one row against the row before it (undefined for the first). Returns the reason the
 * row is bad, or undefined when it links correctly and its own hash matches its content.
 */
export function checkLink(prev: AuditRow | undefined, row: AuditRow): TamperReason | undefined {
  const expectedSeq = prev ? prev.seq + 1 : 1;
  if (row.seq !== expectedSeq) return 'seq_gap';
  if (row.prev_hash !== (prev ? prev.hash : GENESIS_HASH)) return 'prev_hash_mismatch';
  let data: unknown;
  try {
    data = JSON.parse(row.data);
  } catch {
    return 'malformed_data';
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return 'malformed_data';
  const { hash, ...rest } = row;
  if (hashEntry({ ...rest, data: data as Record<string, unknown> }) !== hash) return 'hash_mismatch';
  return undefined;
}
