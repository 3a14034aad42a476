import { ApiError } from '../../lib/api.js';
import { AxleCommand } from '../../lib/base.js';
import { CONSENT_DESCRIPTION, type ConsentResult, consentExamples, recordConsent } from '../../lib/consent.js';
import { updateConfig } from '../../lib/config.js';
import { EXIT, fail } from '../../lib/exit.js';

export default class ConsentRevoke extends AxleCommand {
  static override summary = 'Stop local capture and revoke extraction consent on the server';

  static override description = `${CONSENT_DESCRIPTION}
Local capture is switched off first, so it is off even when the server cannot record the revocation.`;

  static override examples = consentExamples('revoke');

  async run(): Promise<ConsentResult> {
    // What stops this machine reading transcripts is local: it must not wait on a server that may be down.
    await updateConfig((c) => ({
      ...c,
      capture: { enabled: false, since: c.capture?.since ?? new Date().toISOString() },
    }));
    try {
      const { api } = await this.api({ requireKey: true });
      const res = await recordConsent(api, 'revoke');
      this.log(`Consent revoked (audit ${res.audit_ref}). Local capture is off; hooks now do nothing.`);
      return res;
    } catch (err) {
      const exit =
        err instanceof ApiError ? err.exit : ((err as { oclif?: { exit?: number } }).oclif?.exit ?? EXIT.FAILED);
      return fail(
        `Local capture is off; hooks now do nothing. The server has not recorded the revocation: ${(err as Error).message}`,
        exit,
      );
    }
  }
}
