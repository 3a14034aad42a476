import type { Queryable } from './queryable.js';

export interface TermsAcceptanceRow {
  version: string;
  accepted_at: number;
  audit_ref: string;
}

/** SQL for terms_acceptances (migration 016). */
export const termsStore = {
  latest(q: Queryable, accountId: string): Promise<TermsAcceptanceRow | undefined> {
    return q.get<TermsAcceptanceRow>(
      'SELECT version, accepted_at, audit_ref FROM terms_acceptances WHERE account_id = ? ORDER BY id DESC LIMIT 1',
      [accountId],
    );
  },

  find(q: Queryable, accountId: string, version: string): Promise<TermsAcceptanceRow | undefined> {
    return q.get<TermsAcceptanceRow>(
      'SELECT version, accepted_at, audit_ref FROM terms_acceptances WHERE account_id = ? AND version = ?',
      [accountId, version],
    );
  },

  async hasAny(q: Queryable, accountId: string): Promise<boolean> {
    return (await q.get('SELECT 1 FROM terms_acceptances WHERE account_id = ? LIMIT 1', [accountId])) !== undefined;
  },

  async insert(q: Queryable, row: TermsAcceptanceRow & { account_id: string; via: string }): Promise<void> {
    await q.run(
      'INSERT INTO terms_acceptances (account_id, version, accepted_at, via, audit_ref) VALUES (?, ?, ?, ?, ?)',
      [row.account_id, row.version, row.accepted_at, row.via, row.audit_ref],
    );
  },
};
