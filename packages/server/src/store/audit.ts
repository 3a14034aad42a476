import type { AuditRow } from '../domain/audit-chain.js';
import type { Queryable } from './queryable.js';

/** SQL for the audit_log table (migration 015). Rows are only ever inserted. */
export const auditStore = {
  head(q: Queryable): Promise<{ seq: number; hash: string } | undefined> {
    return q.get<{ seq: number; hash: string }>('SELECT seq, hash FROM audit_log ORDER BY seq DESC LIMIT 1');
  },

  async insert(q: Queryable, row: AuditRow): Promise<void> {
    await q.run(
      `INSERT INTO audit_log (id, seq, ts, actor, action, subject, data, prev_hash, hash)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [row.id, row.seq, row.ts, row.actor, row.action, row.subject, row.data, row.prev_hash, row.hash],
    );
  },

  /** Rows in chain order after `afterSeq`, a page at a time so verifying a long log stays bounded in memory. */
  page(q: Queryable, afterSeq: number, limit: number): Promise<AuditRow[]> {
    return q.all<AuditRow>(
      'SELECT id, seq, ts, actor, action, subject, data, prev_hash, hash FROM audit_log WHERE seq > ? ORDER BY seq LIMIT ?',
      [afterSeq, limit],
    );
  },

  byId(q: Queryable, id: string): Promise<AuditRow | undefined> {
    return q.get<AuditRow>(
      'SELECT id, seq, ts, actor, action, subject, data, prev_hash, hash FROM audit_log WHERE id = ?',
      [id],
    );
  },
};
