import { randomBytes } from 'node:crypto';
import { API_KEY_SCOPES, type ApiKeyScope, DEFAULT_KEY_SCOPES, ERROR_CODES, LIMITS } from '@axle/sdk';
import { DomainError } from '../domain/errors.js';
import { type ApiKeyRow, apiKeysStore } from '../store/api-keys.js';
import type { Queryable } from '../store/queryable.js';
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
 * An account at LIMITS.liveApiKeysPerAccount live keys gets DomainError api_key_limit (409).
 */
export async function createKey(
  q: Queryable,
  accountId: string,
  opts: { name?: string; scopes?: readonly ApiKeyScope[] },
  now: number,
): Promise<CreatedKey> {
  const max = LIMITS.liveApiKeysPerAccount;
  if ((await apiKeysStore.countActive(q, accountId)) >= max) {
    throw new DomainError(
      ERROR_CODES.API_KEY_LIMIT,
      `An account holds at most ${max} live API keys; revoke one first`,
      { max_live_keys: max },
    );
  }
  const apiKey = generateApiKey();
  const scopes = API_KEY_SCOPES.filter((s) => (opts.scopes ?? DEFAULT_KEY_SCOPES).includes(s));
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
export async function revokeKey(
  q: Queryable,
  accountId: string,
  keyId: string,
  now: number,
): Promise<{ audit_ref: string } | null> {
  if (!(await apiKeysStore.revoke(q, accountId, keyId, now))) return null;
  const auditRef = await appendAudit(q, { actor: `account:${accountId}`, action: 'key.revoked', subject: keyId }, now);
  return { audit_ref: auditRef };
}

export type ListedKey = Omit<ApiKeyRow, 'scopes'> & { scopes: ApiKeyScope[] };

const listed = (r: ApiKeyRow): ListedKey => ({ ...r, scopes: parseScopes(r.scopes) });

export function listKeys(q: Queryable, accountId: string): Promise<ListedKey[]> {
  return apiKeysStore.listActive(q, accountId).then((rows) => rows.map(listed));
}

export interface KeyPage {
  keys: ListedKey[];
  /** Opaque position after the page's last key; null on the last page. */
  next_cursor: string | null;
}

const encodeCursor = (k: { created_at: number; id: string }) =>
  Buffer.from(`${k.created_at}:${k.id}`).toString('base64url');

function decodeCursor(cursor: string): { created_at: number; id: string } {
  const m = /^(\d{1,16}):(key_[\w-]{1,100})$/.exec(Buffer.from(cursor, 'base64url').toString());
  if (!m)
    throw new DomainError(ERROR_CODES.VALIDATION, 'Invalid request: query.cursor: not a cursor this server gave', {
      field: 'query.cursor',
    });
  return { created_at: Number(m[1]), id: m[2]! };
}

/** One page of the account's live keys, oldest first. */
export async function listKeyPage(q: Queryable, accountId: string, limit: number, cursor?: string): Promise<KeyPage> {
  const rows = await apiKeysStore.listActivePage(
    q,
    accountId,
    limit + 1,
    cursor === undefined ? undefined : decodeCursor(cursor),
  );
  const page = rows.slice(0, limit);
  return { keys: page.map(listed), next_cursor: rows.length > limit ? encodeCursor(page.at(-1)!) : null };
}
