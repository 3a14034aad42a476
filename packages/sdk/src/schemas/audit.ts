import { z } from '../zod.js';

export const AUDIT_TAMPER_REASONS = ['seq_gap', 'prev_hash_mismatch', 'hash_mismatch', 'malformed_data'] as const;

/** GET /admin/audit/verify and `npm run audit:verify`. */
export const AuditVerification = z
  .object({
    ok: z.boolean().describe('true when every entry links to the one before and matches its own hash'),
    checked: z.number().int().min(0).describe('entries examined, up to and including the first bad one'),
    first_bad: z
      .object({
        id: z.string(),
        seq: z.number().int(),
        reason: z
          .enum(AUDIT_TAMPER_REASONS)
          .describe(
            'seq_gap: an entry before it is missing; prev_hash_mismatch: it no longer links to the previous entry; ' +
              'hash_mismatch: its content was changed; malformed_data: its data is not a JSON object',
          ),
      })
      .optional(),
  })
  .openapi('AuditVerification');
export type AuditVerification = z.infer<typeof AuditVerification>;
