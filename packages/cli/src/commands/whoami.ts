import { AxleCommand } from '../lib/base.js';
import { EXIT, fail } from '../lib/exit.js';
import { keyNotChecked, keyRefused } from '../lib/api.js';

export default class Whoami extends AxleCommand {
  static override summary = 'Show who the saved key signs in as, and whether the server accepts it';

  static override description =
    'Exit codes: 0 signed in and the key works, 1 the server could not check the key (busy or failing), 3 not signed ' +
    'in or the key is refused, 4 server unreachable.';

  static override examples = ['<%= config.bin %> whoami', '<%= config.bin %> whoami --json'];

  async run(): Promise<{ server: string; email?: string; account_id?: string; key_valid: boolean }> {
    const { api, config } = await this.api({ requireKey: true });
    const res = await api.raw('GET', '/account/settings');
    const out = {
      server: api.server,
      ...(config.email && { email: config.email }),
      ...(config.account_id && { account_id: config.account_id }),
      key_valid: res.status === 200,
    };
    if (keyRefused(res.status))
      fail(`The server refused the saved key (HTTP ${res.status}): run \`axle login\``, EXIT.AUTH);
    if (!out.key_valid) fail(keyNotChecked(res.status), EXIT.FAILED);
    this.log(`${config.email ?? config.account_id} on ${api.server}`);
    return out;
  }
}
