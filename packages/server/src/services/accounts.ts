import type { ApiKeyScope } from '@axle/sdk';
import type { Clock } from '../clock.js';
import { newId } from '../domain/ids.js';
import { type AccountRow, accountsStore } from '../store/accounts.js';
import { apiKeysStore } from '../store/api-keys.js';
import type { Queryable, Transactor } from '../store/queryable.js';
import type { AccountWriteLimiter } from './account-write-limits.js';
import {
  API_KEY_PATTERN,
  type CreatedKey,
  createKey,
  hashApiKey,
  type KeyPage,
  type ListedKey,
  listKeyPage,
  listKeys,
  parseScopes,
  revokeKey,
} from './api-keys.js';
import { appendAudit } from './audit.js';

export type { AccountRow };

/** Emails are compared case-insensitively: one account per address however it is typed. */
export const normalizeEmail = (email: string): string => email.trim().toLowerCase();

export const newAccountId = (): string => newId('acc');

/** The account for `email`, created on first sign-in. Call inside the sign-in transaction. */
export function findOrCreateAccount(q: Queryable, email: string, now: number): Promise<AccountRow> {
  return accountsStore.insertOrGet(q, { id: newAccountId(), email: normalizeEmail(email), created_at: now });
}

/** A live account by id; deleted accounts are treated as absent. */
export async function getAccount(q: Queryable, id: string): Promise<AccountRow | undefined> {
  const row = await accountsStore.byId(q, id);
  return row && row.deleted_at == null ? row : undefined;
}

/** Suspends or reinstates a live account and audit-logs it; returns the audit_ref, or null if there is no such account. */
export async function setSuspended(q: Queryable, id: string, suspended: boolean, now: number): Promise<string | null> {
  if (!(await accountsStore.setSuspended(q, id, suspended))) return null;
  return appendAudit(
    q,
    { actor: 'admin', action: suspended ? 'account.suspended' : 'account.unsuspended', subject: id },
    now,
  );
}

/** What authentication learns from a presented API key. */
export interface KeyIdentity {
  accountId: string;
  keyId: string;
  scopes: ApiKeyScope[];
}

/** Accounts and their keys, each call in its own transaction. What routes and http/identity use. */
export interface AccountsService {
  /** A live account by id. */
  get(id: string): Promise<AccountRow | undefined>;
  /** The live key with this raw value, or null; refreshes its last_used_at at most once a minute. */
  authenticateKey(raw: string): Promise<KeyIdentity | null>;
  /** Limited per account (LIMITS.accountWrites.apiKeyCreate) and to LIMITS.liveApiKeysPerAccount live keys. */
  createKey(accountId: string, opts: { name?: string; scopes?: readonly ApiKeyScope[] }): Promise<CreatedKey>;
  listKeys(accountId: string): Promise<ListedKey[]>;
  listKeyPage(accountId: string, limit: number, cursor?: string): Promise<KeyPage>;
  revokeKey(accountId: string, keyId: string): Promise<{ audit_ref: string } | null>;
  /** The audit_ref of the change, or null when there is no such account. */
  setSuspended(id: string, suspended: boolean): Promise<string | null>;
}

/** last_used_at is refreshed at most this often per key, so a busy key costs one write a minute. */
const TOUCH_INTERVAL_MS = 60_000;

export function createAccountsService({
  db,
  clock,
  writeLimits,
}: {
  db: Transactor;
  clock: Clock;
  writeLimits: AccountWriteLimiter;
}): AccountsService {
  return {
    get: (id) => getAccount(db, id),

    async authenticateKey(raw) {
      if (!API_KEY_PATTERN.test(raw)) return null;
      const row = await apiKeysStore.byHash(db, hashApiKey(raw));
      if (!row) return null;
      const now = clock.now();
      if (row.last_used_at === null || row.last_used_at <= now - TOUCH_INTERVAL_MS) {
        await apiKeysStore.touch(db, row.id, now, now - TOUCH_INTERVAL_MS + 1);
      }
      return { accountId: row.account_id, keyId: row.id, scopes: parseScopes(row.scopes) };
    },

    createKey: (accountId, opts) =>
      db.tx(async (q) => {
        await writeLimits.take('apiKeyCreate', accountId, q);
        return createKey(q, accountId, opts, clock.now());
      }),
    listKeys: (accountId) => listKeys(db, accountId),
    listKeyPage: (accountId, limit, cursor) => listKeyPage(db, accountId, limit, cursor),
    revokeKey: (accountId, keyId) => db.tx((q) => revokeKey(q, accountId, keyId, clock.now())),
    setSuspended: (id, suspended) => db.tx((q) => setSuspended(q, id, suspended, clock.now())),
  };
}
