import type { Api } from './api.js';

/** The server's answer to POST /extract/consent. */
export interface ConsentResult {
  consent_recorded: boolean;
  action: string;
  consent_version: string;
  audit_ref: string;
}

/** The help text both consent commands share. */
export const CONSENT_DESCRIPTION = `Calls POST /extract/consent with the key from device login (a key with the account scope).
Exit codes: 0 recorded, 3 not signed in or the key lacks the account scope, 4 server unreachable.`;

/** The examples of `axle consent <action>`. */
export function consentExamples(action: 'grant' | 'revoke'): string[] {
  return [`<%= config.bin %> consent ${action}`, `<%= config.bin %> consent ${action} --json`];
}

/** Records `action` on the server for the signed-in account. */
export function recordConsent(api: Api, action: 'grant' | 'revoke'): Promise<ConsentResult> {
  return api.call<ConsentResult>('POST', '/extract/consent', { action });
}
