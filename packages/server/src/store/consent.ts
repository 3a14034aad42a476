import type { CONSENT_ACTIONS, EXTRACTION_MODES } from '@axle/sdk';
import type { Queryable } from './queryable.js';

export type ConsentActionValue = (typeof CONSENT_ACTIONS)[number];
export type ExtractionModeValue = (typeof EXTRACTION_MODES)[number];

export interface ConsentRow {
  action: ConsentActionValue;
  consent_version: string;
  recorded_at: number;
  audit_ref: string;
}

/** SQL for consent_records and account_settings (migration 017). */
export const consentStore = {
  latest(q: Queryable, accountId: string): Promise<ConsentRow | undefined> {
    return q.get<ConsentRow>(
      'SELECT action, consent_version, recorded_at, audit_ref FROM consent_records WHERE account_id = ? ORDER BY id DESC LIMIT 1',
      [accountId],
    );
  },

  async insert(q: Queryable, row: ConsentRow & { account_id: string; via: string }): Promise<void> {
    await q.run(
      'INSERT INTO consent_records (account_id, action, consent_version, via, recorded_at, audit_ref) VALUES (?, ?, ?, ?, ?, ?)',
      [row.account_id, row.action, row.consent_version, row.via, row.recorded_at, row.audit_ref],
    );
  },

  async mode(q: Queryable, accountId: string): Promise<ExtractionModeValue | undefined> {
    const row = await q.get<{ m: ExtractionModeValue }>(
      'SELECT autonomous_extraction_mode AS m FROM account_settings WHERE account_id = ?',
      [accountId],
    );
    return row?.m;
  },

  async setMode(q: Queryable, accountId: string, mode: ExtractionModeValue, now: number): Promise<void> {
    await q.run(
      `INSERT INTO account_settings (account_id, autonomous_extraction_mode, updated_at) VALUES (?, ?, ?)
       ON CONFLICT (account_id) DO UPDATE SET autonomous_extraction_mode = excluded.autonomous_extraction_mode, updated_at = excluded.updated_at`,
      [accountId, mode, now],
    );
  },

  /** The account's auto-publish threshold, or undefined for the default. */
  async autoPublishThreshold(q: Queryable, accountId: string): Promise<number | undefined> {
    const row = await q.get<{ t: number | null }>(
      'SELECT auto_publish_threshold AS t FROM account_settings WHERE account_id = ?',
      [accountId],
    );
    return row?.t ?? undefined;
  },

  async setAutoPublishThreshold(q: Queryable, accountId: string, threshold: number, now: number): Promise<void> {
    await q.run(
      `INSERT INTO account_settings (account_id, autonomous_extraction_mode, auto_publish_threshold, updated_at) VALUES (?, 'off', ?, ?)
       ON CONFLICT (account_id) DO UPDATE SET auto_publish_threshold = excluded.auto_publish_threshold, updated_at = excluded.updated_at`,
      [accountId, threshold, now],
    );
  },
};
