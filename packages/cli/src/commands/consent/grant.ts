import { AxleCommand } from '../../lib/base.js';

interface ConsentResult {
  consent_recorded: boolean;
  action: string;
  consent_version: string;
  audit_ref: string;
}

export default class ConsentGrant extends AxleCommand {
  static override summary = 'Record on the server that you consent to background extraction';

  static override description =
    `Calls POST /extract/consent with the key from device login (a key with the account scope).
Exit codes: 0 recorded, 3 not signed in or the key lacks the account scope, 4 server unreachable.`;

  static override examples = ['<%= config.bin %> consent grant', '<%= config.bin %> consent grant --json'];

  async run(): Promise<ConsentResult> {
    const { api } = await this.api({ requireKey: true });
    const res = await api.call<ConsentResult>('POST', '/extract/consent', { action: 'grant' });
    this.log(
      `Consent recorded (version ${res.consent_version}). Background capture itself is switched on by \`axle setup --enable-extraction\`.`,
    );
    return res;
  }
}
