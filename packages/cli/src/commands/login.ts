import { Flags } from '@oclif/core';
import { AxleCommand } from '../lib/base.js';
import { readConfig, serverOf } from '../lib/config.js';
import { interactive } from '../lib/prompt.js';
import { signIn } from '../lib/session.js';

export default class Login extends AxleCommand {
  static override summary = 'Sign in by device code and save an API key in ~/.axle/config.json';

  static override description =
    `Prints a code and a link, then "waiting for approval… (Ctrl-C to stop)" with the time waited; approve the
code on the server's /device page. A browser opens only on a terminal with a display (macOS, Windows, or
DISPLAY/WAYLAND_DISPLAY set); --no-browser only prints the link.
Exit codes: 0 signed in, 1 the server answered unlike an Axle server (a link that is not http(s), a malformed key),
3 the code expired or sign-in failed, 4 server unreachable, 6 denied.`;

  static override examples = [
    '<%= config.bin %> login',
    '<%= config.bin %> login --server https://axle.example.com --no-browser',
  ];

  static override flags = {
    server: Flags.string({ description: 'Axle server URL (default: the saved one, else http://localhost:8402)' }),
    browser: Flags.boolean({
      description: 'open the sign-in page in a browser when a display is available (--no-browser: only print the link)',
      default: true,
      allowNo: true,
    }),
  };

  async run(): Promise<{ server: string; email: string; account_id: string }> {
    const { flags } = await this.parse(Login);
    const server = serverOf(await readConfig(), flags.server);
    const config = await signIn(server, { openBrowser: flags.browser && interactive(), progress: this.progress() });
    this.log(`Signed in to ${server} as ${config.email}`);
    return { server, email: config.email!, account_id: config.account_id! };
  }
}
