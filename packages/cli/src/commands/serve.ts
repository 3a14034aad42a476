import { join } from 'node:path';
import { Flags } from '@oclif/core';
import { loadConfig, startServer } from '@axle/server';
import { AxleCommand } from '../lib/base.js';
import { EXIT, fail } from '../lib/exit.js';
import { axlePaths } from '../lib/paths.js';

export default class Serve extends AxleCommand {
  static override summary = 'Run the bundled Axle server';

  static override description =
    `Starts the server that ships with the CLI, in the foreground, until Ctrl-C (SIGINT) or SIGTERM.
Other settings come from the server's environment variables (AXLE_BASE_URL, AXLE_SMTP_URL, …).
Exit codes: 0 stopped cleanly, 1 the configuration or the port was refused.`;

  static override examples = ['<%= config.bin %> serve', '<%= config.bin %> serve --port 9000 --data-dir ./data'];

  static override enableJsonFlag = false;

  static override flags = {
    port: Flags.integer({ description: 'port to listen on (0 picks a free one)', default: 8402, min: 0, max: 65535 }),
    host: Flags.string({ description: 'address to bind', default: '127.0.0.1' }),
    'data-dir': Flags.string({ description: 'where the database lives (default ~/.axle/server)' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Serve);
    const env = {
      ...process.env,
      PORT: String(flags.port),
      HOST: flags.host,
      AXLE_DATA_DIR: flags['data-dir'] ?? join(axlePaths().home, 'server'),
    };
    let server: Awaited<ReturnType<typeof startServer>>;
    try {
      server = await startServer({ config: loadConfig(env) });
    } catch (err) {
      return fail((err as Error).message, EXIT.FAILED);
    }
    process.stdout.write(`Axle server listening on ${server.url}\n`);
    await new Promise<void>((resolve) => {
      const stop = () => void server.close().then(resolve, resolve);
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
  }
}
