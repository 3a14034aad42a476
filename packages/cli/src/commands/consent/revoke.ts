import { AxleCommand } from '../../lib/base.js';
import { updateConfig } from '../../lib/config.js';

interface ConsentResult {
  consent_recorded: boolean;
  action: string;
  consent_version: string;
  audit_ref: string;
}

export default class ConsentRevoke extends AxleCommand {
  static override summary = 'Revoke extraction consent on the server and stop local capture';

  static override description =
    `Calls POST /extract/consent with the key from device login (a key with the account scope).
Exit codes: 0 recorded, 3 not signed in or the key lacks the account scope, 4 server unreachable.`;

  static override examples = ['<%= config.bin %> consent revoke', '<%= config.bin %> consent revoke --json'];

  async run(): Promise<ConsentResult> {
    const { api } = await this.api({ requireKey: true });
    const res = await api.call<ConsentResult>('POST', '/extract/consent', { action: 'revoke' });
    await updateConfig((c) => ({
      ...c,
      capture: { enabled: false, since: c.capture?.since ?? new Date().toISOString() },
    }));
    this.log(`Consent revoked (audit ${res.audit_ref}). Local capture is off; hooks now do nothing.`);
    return res;
  }
}
