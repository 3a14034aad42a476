import {
  type AuditRow,
  canonicalJson,
  checkLink,
  GENESIS_HASH,
  hashEntry,
  type TamperReason,
} from '../domain/audit-chain.js';
import { auditStore } from '../store/audit.js';
import { isTransactor, type Queryable, type Transactor } from '../store/queryable.js';
import { newId } from '../domain/ids.js';

export interface AuditEntry {
  /** Who did it: `account:acc_…`, `admin`, `system`. */
  actor: string;
  /** Dotted verb: consent.granted, terms.accepted, key.created, device.approved, learning.retracted … */
  action: string;
  /** What it touched (an account, key or learning id), or null. */
  subject?: string | null;
  /** Extra facts; never secrets (raw keys, tokens). */
  data?: Record<string, unknown>;
}

export interface AuditVerification {
  ok: boolean;
  /** Entries examined (up to and including the first bad one). */
  checked: number;
  first_bad?: { id: string; seq: number; reason: TamperReason };
}

/** Appends to the chain are serialised under this lock key. */
const AUDIT_CHAIN_LOCK = 'axle:audit-chain';

/**
 * Appends one entry and returns its id (the `audit_ref` responses carry). Call it with the `q` of
 * the transaction that makes the change being audited, so both commit or neither does. The head
 * is read and the row inserted under the chain's lock (SQLite's single writer, PostgreSQL's
 * advisory transaction lock), and seq is UNIQUE, so two writers, even two server processes on
 * one database, can never fork the chain.
 */
export async function appendAudit(q: Queryable, entry: AuditEntry, now: number): Promise<string> {
  // Outside a transaction the head read and the insert could interleave with another writer.
  if (isTransactor(q)) return q.tx((tx) => appendAudit(tx, entry, now));
  await q.lock(AUDIT_CHAIN_LOCK);
  const head = await auditStore.head(q);
  const fields = {
    prev_hash: head?.hash ?? GENESIS_HASH,
    id: newId('aud'),
    seq: (head?.seq ?? 0) + 1,
    ts: now,
    actor: entry.actor,
    action: entry.action,
    subject: entry.subject ?? null,
    data: entry.data ?? {},
  };
  const row: AuditRow = { ...fields, data: canonicalJson(fields.data), hash: hashEntry(fields) };
  await auditStore.insert(q, row);
  return row.id;
}

const PAGE = 1000;

/** Walks the whole chain in order and reports the first entry that was edited, removed or re-linked. */
export async function verifyAuditChain(db: Queryable): Promise<AuditVerification> {
  let prev: AuditRow | undefined;
  let checked = 0;
  for (;;) {
    const rows = await auditStore.page(db, prev?.seq ?? 0, PAGE);
    for (const row of rows) {
      checked++;
      const reason = checkLink(prev, row);
      if (reason) return { ok: false, checked, first_bad: { id: row.id, seq: row.seq, reason } };
      prev = row;
    }
    if (rows.length < PAGE) return { ok: true, checked };
  }
}

/** The admin's view of the audit log. */
export interface AuditService {
  verify(): Promise<AuditVerification>;
}

export const createAuditService = ({ db }: { db: Transactor }): AuditService => ({
  verify: () => verifyAuditChain(db),
});
