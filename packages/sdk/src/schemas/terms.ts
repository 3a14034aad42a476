import { z } from '../zod.js';

/** The terms of service in force. Accepting any other version is refused with 409. */
export const CURRENT_TOS_VERSION = '2026-11-01';

const AuditRef = z
  .string()
  .regex(/^aud_[0-9a-f]+$/)
  .describe('id of the audit-log entry recording this change');

/** GET /account/terms-status. */
export const TermsStatus = z
  .object({
    current_tos_version: z.string(),
    accepted_version: z.string().nullable().describe('latest version this account accepted, or null'),
    accepted_at: z.number().int().nullable().describe('Unix milliseconds of that acceptance, or null'),
    terms_url: z.string().url(),
  })
  .openapi('TermsStatus');
export type TermsStatus = z.infer<typeof TermsStatus>;

/** POST /account/accept-terms (clickwrap). */
export const AcceptTermsRequest = z
  .object({
    version: z.string().min(1).max(64).describe('must equal current_tos_version'),
    agree: z.boolean().optional().describe('must be true (explicit affirmation); otherwise 400 AFFIRMATION_REQUIRED'),
  })
  .openapi('AcceptTermsRequest');
export type AcceptTermsRequest = z.infer<typeof AcceptTermsRequest>;

export const AcceptTermsResponse = z
  .object({
    message: z.string(),
    version: z.string(),
    accepted_at: z.number().int().describe('Unix milliseconds; on a repeated acceptance, the original time'),
    audit_ref: AuditRef,
  })
  .openapi('AcceptTermsResponse');
export type AcceptTermsResponse = z.infer<typeof AcceptTermsResponse>;

export { AuditRef };
