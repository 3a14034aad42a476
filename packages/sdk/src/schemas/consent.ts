import { z } from '../zod.js';
import { ConsentAction, ExtractionMode } from './common.js';
import { AuditRef } from './terms.js';

/** Date of the extraction-consent text in force; every consent record carries it. */
export const CURRENT_CONSENT_VERSION = '2026-11-01';

const ConsentVersion = z.string().date().describe('ISO date of the consent text the record refers to');

/** POST /extract/consent. */
export const ConsentRequest = z.object({ action: ConsentAction }).openapi('ConsentRequest');
export type ConsentRequest = z.infer<typeof ConsentRequest>;

export const ConsentResponse = z
  .object({
    consent_recorded: z.boolean().describe('true: an append-only consent record was written'),
    action: ConsentAction,
    consent_version: ConsentVersion,
    audit_ref: AuditRef,
  })
  .openapi('ConsentResponse');
export type ConsentResponse = z.infer<typeof ConsentResponse>;

/** Default of the auto-publish threshold (quality score 0..1, the rubric total 14 of 20 at the floor's edge is 0.625). */
export const DEFAULT_AUTO_PUBLISH_THRESHOLD = 0.7;

const AutoPublishThreshold = z
  .number()
  .min(0)
  .max(1)
  .describe(
    `Extension of the contract: an extracted item is published without review only when standing consent is active, every screen is clean and its quality score (self-assessment normalised to 0..1) is at least this; default ${DEFAULT_AUTO_PUBLISH_THRESHOLD}`,
  );

/** PATCH /account/settings. */
export const AccountSettingsPatch = z
  .object({
    autonomous_extraction_mode: ExtractionMode.optional(),
    auto_publish_threshold: AutoPublishThreshold.optional(),
  })
  .refine((b) => b.autonomous_extraction_mode !== undefined || b.auto_publish_threshold !== undefined, {
    message: 'give autonomous_extraction_mode, auto_publish_threshold or both',
  })
  .openapi('AccountSettingsPatch');
export type AccountSettingsPatch = z.infer<typeof AccountSettingsPatch>;

export const AccountSettingsPatchResponse = z
  .object({
    autonomous_extraction_mode: ExtractionMode,
    auto_publish_threshold: AutoPublishThreshold,
    consent_recorded: z
      .boolean()
      .describe('true when this change granted (first non-off mode) or revoked (off) consent'),
    consent_version: ConsentVersion.optional().describe('present when consent_recorded'),
    audit_ref: AuditRef.optional().describe('present when consent_recorded'),
  })
  .openapi('AccountSettingsPatchResponse');
export type AccountSettingsPatchResponse = z.infer<typeof AccountSettingsPatchResponse>;

/** GET /account/settings. */
export const AccountSettings = z
  .object({
    autonomous_extraction_mode: ExtractionMode.describe('off until the account chooses otherwise'),
    consent_granted: z.boolean().describe('the latest consent record is a grant'),
    consent_version: ConsentVersion.nullable().describe('version of the latest consent record, or null if none'),
    auto_publish_threshold: AutoPublishThreshold,
  })
  .openapi('AccountSettings');
export type AccountSettings = z.infer<typeof AccountSettings>;
