import { type AccountRow, accountsStore } from '../store/accounts.js';
import type { Queryable } from '../store/db.js';
import { appendAudit } from './audit.js';
import { newId } from '../domain/ids.js';

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
  return appendAudit(q, { actor: 'admin', action: suspended ? 'account.suspended' : 'account.unsuspended', subject: id }, now);
}
