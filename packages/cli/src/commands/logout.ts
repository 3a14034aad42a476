import { AxleCommand } from '../lib/base.js';
import { readConfig, writeConfig } from '../lib/config.js';

export default class Logout extends AxleCommand {
  static override summary = 'Forget the saved API key';

  static override description =
    `Removes the key from ~/.axle/config.json. Clients set up with it keep it until \`axle setup --undo\`;
revoke the key itself from your account dashboard. Exit code 0 whether or not a key was saved.`;

  static override examples = ['<%= config.bin %> logout'];

  async run(): Promise<{ signed_out: boolean }> {
    const { api_key, account_id, email, ...rest } = await readConfig();
    if (!api_key) {
      this.log('Not signed in.');
      return { signed_out: false };
    }
    await writeConfig(rest);
    this.log(`Signed out${email ? ` (${email})` : ''}.`);
    return { signed_out: true };
  }
}
