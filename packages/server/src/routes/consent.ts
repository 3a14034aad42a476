import {
  AccountSettings,
  AccountSettingsPatch,
  AccountSettingsPatchResponse,
  ConsentRequest,
  ConsentResponse,
  CURRENT_CONSENT_VERSION,
  LIMITS,
} from '@axle/sdk';
import type { AppDeps } from '../deps.js';
import type { Api } from '../http/route.js';
import type { IdentityState } from '../http/identity.js';
import type { ConsentActor } from '../services/consent.js';

/** The device-login key of `axle consent` carries the account scope; a session token works as the spec shows. */
const KEY_EXTENSION =
  ' Beyond the contract, which shows a session token only, an API key with the account scope is accepted too (the CLI signs in by ' +
  'device code and holds only a key); the audit entry then names the key (data.key_id).';

const actorOf = (identity: IdentityState | undefined): ConsentActor => ({
  accountId: identity!.accountId,
  ...(identity!.keyId && { keyId: identity!.keyId }),
});

const { perMinute, perHour } = LIMITS.accountWrites.consentChange;
const CONSENT_RATE = `More than ${perMinute} consent changes a minute or ${perHour} an hour on this account`;

/** POST /extract/consent, PATCH and GET /account/settings. */
export function consentRoutes(api: Api, deps: AppDeps): void {
  const { identity, consent } = deps;

  api.route({
    method: 'post',
    path: '/extract/consent',
    operationId: 'recordExtractionConsent',
    summary: 'Grant or revoke standing consent to autonomous extraction',
    description:
      `Every call appends a consent record carrying consent_version (currently ${CURRENT_CONSENT_VERSION}, the date of the consent text) and an ` +
      'audit-log entry (audit_ref). Revoking also sets autonomous_extraction_mode to off.' +
      KEY_EXTENSION,
    tags: ['Extraction'],
    security: ['BearerJWT', 'ApiKey'],
    before: [identity.requireJwtOrKey()],
    body: ConsentRequest,
    responses: {
      200: { description: 'Recorded', schema: ConsentResponse },
      400: { description: 'action must be grant or revoke' },
      401: { description: 'Missing or invalid credentials' },
      403: { description: 'API key without the account scope' },
      429: { description: CONSENT_RATE, headers: { 'Retry-After': 'seconds until the next change is taken' } },
    },
    handler: ({ body }, ctx) => consent.record(actorOf(ctx.state.identity), body.action),
  });

  api.route({
    method: 'patch',
    path: '/account/settings',
    operationId: 'updateAccountSettings',
    summary: 'Set the autonomous extraction mode and the auto-publish threshold',
    description:
      'auto_publish_threshold (0..1) extends the contract: the quality score an extracted item needs to publish without review. ' +
      'Moving to automatic or manual while consent is not in force records a grant; moving to off while it is records a revocation ' +
      '(consent_recorded true, with consent_version and audit_ref). Other changes record nothing.' +
      KEY_EXTENSION,
    tags: ['Account'],
    security: ['BearerJWT', 'ApiKey'],
    before: [identity.requireJwtOrKey()],
    body: AccountSettingsPatch,
    responses: {
      200: { description: 'New mode', schema: AccountSettingsPatchResponse },
      400: { description: 'Unknown mode' },
      401: { description: 'Missing or invalid credentials' },
      403: { description: 'API key without the account scope' },
      429: { description: CONSENT_RATE, headers: { 'Retry-After': 'seconds until the next change is taken' } },
    },
    handler: ({ body }, ctx) =>
      consent.setMode(actorOf(ctx.state.identity), {
        mode: body.autonomous_extraction_mode,
        autoPublishThreshold: body.auto_publish_threshold,
      }),
  });

  api.route({
    method: 'get',
    path: '/account/settings',
    operationId: 'getAccountSettings',
    summary: 'Current extraction mode and consent state',
    tags: ['Account'],
    security: ['BearerJWT', 'ApiKey'],
    before: [identity.requireJwtOrKey()],
    responses: {
      200: { description: 'Settings', schema: AccountSettings },
      401: { description: 'Missing or invalid credentials' },
      403: { description: 'API key without the account scope' },
    },
    handler: (_input, ctx) => consent.settings(ctx.state.identity!.accountId),
  });
}
