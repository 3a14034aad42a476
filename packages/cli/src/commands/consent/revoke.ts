import { AxleCommand } from '../../lib/base.js';
import { CONSENT_DESCRIPTION, type ConsentResult, consentExamples, recordConsent } from '../../lib/consent.js';
import { updateConfig } from '../../lib/config.js';

export default class ConsentRevoke extends AxleCommand {
  static override summary = 'Revoke extraction consent on the server and stop local capture';

  static override description = CONSENT_DESCRIPTION;

  static override examples = consentExamples('revoke');

  async run(): Promise<ConsentResult> {
    const { api } = await this.api({ requireKey: true });
    const res = await recordConsent(api, 'revoke');
    await updateConfig((c) => ({
      ...c,
      capture: { enabled: false, since: c.capture?.since ?? new Date().toISOString() },
    }));
    this.log(`Consent revoked (audit ${res.audit_ref}). Local capture is off; hooks now do nothing.`);
    return res;
  }
}
