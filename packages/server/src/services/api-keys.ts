import { randomBytes } from 'node:crypto';
import { API_KEY_SCOPES, type ApiKeyScope } from '@axle/sdk';
import { type ApiKeyRow, apiKeysStore } from '../store/api-keys.js';
import type { Queryable } from '../store/db.js';
import { appendAudit } from './audit.js';
import { newId, sha256Hex } from '../domain/ids.js';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 62^43 > 2^256, so 43 digits hold any 32-byte value; shorter encodings are zero-padded. */
const KEY_DIGITS = 43;
export const API_KEY_PATTERN = /^axl_[0-9A-Za-z]{43}$/;

export function base62(bytes: Uint8Array, width: number): string {
  let n = BigInt(`0x${Buffer.from(bytes).toString('hex') || '0'}`);
  let out = '';
  while (n > 0n) {
    out = BASE62[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out.padStart(width, '0');
}

/** `axl_` + 32 random bytes in base62. */
export const generateApiKey = (): string => `axl_${base62(randomBytes(32), KEY_DIGITS)}`;

/** Keys are stored and looked up by this digest only. */
export const hashApiKey = (raw: string): string => sha256Hex(raw);

export const parseScopes = (stored: string): ApiKeyScope[] =>
  stored.split(' ').filter((s): s is ApiKeyScope => (API_KEY_SCOPES as readonly string[]).includes(s));

export interface CreatedKey {
  id: string;
  /** The raw key: returned once, never stored. */
  api_key: string;
  name: string;
  scopes: ApiKeyScope[];
  created_at: number;
  audit_ref: string;
}

/**
 * Mints a key for the account and records `key.created` in the audit log. Call with the `q` of the
 * caller's transaction (sign-in, device approval) so the key and its audit entry commit together.
 */
export async function createKey(
  q: Queryable,
  accountId: string,
  opts: { name?: string; scopes?: readonly ApiKeyScope[] },
  now: number,
): Promise<CreatedKey> {
  const apiKey = generateApiKey();
  const scopes = API_KEY_SCOPES.filter((s) => (opts.scopes ?? API_KEY_SCOPES).includes(s));
  const row: ApiKeyRow = {
    id: newId('key'),
    account_id: accountId,
    name: opts.name ?? 'default',
    scopes: scopes.join(' '),
    created_at: now,
    last_used_at: null,
  };
  await apiKeysStore.insert(q, { ...row, key_hash: hashApiKey(apiKey) });
  const auditRef = await appendAudit(
    q,
    { actor: `account:${accountId}`, action: 'key.created', subject: row.id, data: { name: row.name, scopes } },
    now,
  );
  return { id: row.id, api_key: apiKey, name: row.name, scopes, created_at: now, audit_ref: auditRef };
}

/** Revokes one of the account's own keys; null when it has no such live key. */
export async function revokeKey(q: Queryable, accountId: string, keyId: string, now: number): Promise<{ audit_ref: string } | null> {
  if (!(await apiKeysStore.revoke(q, accountId, keyId, now))) return null;
  const auditRef = await appendAudit(q, { actor: `account:${accountId}`, action: 'key.revoked', subject: keyId }, now);
  return { audit_ref: auditRef };
}

export type ListedKey = Omit<ApiKeyRow, 'scopes'> & { scopes: ApiKeyScope[] };

export function listKeys(q: Queryable, accountId: string): Promise<ListedKey[]> {
  return apiKeysStore.listActive(q, accountId).then((rows) => rows.map((r) => ({ ...r, scopes: parseScopes(r.scopes) })));
}
