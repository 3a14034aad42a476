import { AxleCommand } from '../../lib/base.js';
import { CONSENT_DESCRIPTION, type ConsentResult, consentExamples, recordConsent } from '../../lib/consent.js';

export default class ConsentGrant extends AxleCommand {
  static override summary = 'Record on the server that you consent to background extraction';

  static override description = CONSENT_DESCRIPTION;

  static override examples = consentExamples('grant');

  async run(): Promise<ConsentResult> {
    const { api } = await this.api({ requireKey: true });
    const res = await recordConsent(api, 'grant');
    this.log(
      `Consent recorded (version ${res.consent_version}). Background capture itself is switched on by \`axle setup --enable-extraction\`.`,
    );
    return res;
  }
}
