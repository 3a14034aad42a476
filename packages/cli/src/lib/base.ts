import { Command, Errors } from '@oclif/core';
import { Api, ApiError } from './api.js';
import { type AxleConfig, readConfig, serverOf } from './config.js';
import { EXIT, fail } from './exit.js';
import { Progress } from './progress.js';

/**
 * What every command shares: --json (oclif prints run()'s return value), the stored config, an API
 * client, progress that stays quiet for scripts, and ApiErrors turned into their exit codes.
 */
export abstract class AxleCommand extends Command {
  static override enableJsonFlag = true;

  protected progress(): Progress {
    return new Progress(this.jsonEnabled());
  }

  protected async api(opts: { server?: string; requireKey?: boolean } = {}): Promise<{ api: Api; config: AxleConfig }> {
    const config = await readConfig();
    const server = serverOf(config, opts.server);
    if (opts.requireKey && !config.api_key) fail('Not signed in: run `axle login` (or `axle setup`) first', EXIT.AUTH);
    return { api: new Api({ server, ...(config.api_key && { apiKey: config.api_key }) }), config };
  }

  protected override async catch(err: Error & { exitCode?: number }): Promise<unknown> {
    const cli = err instanceof ApiError ? new Errors.CLIError(err.message, { exit: err.exit }) : err;
    // With --json, oclif ends on process.exitCode (else 1) and never reads the error's own exit code.
    const exit = (cli as { oclif?: { exit?: number } }).oclif?.exit;
    if (this.jsonEnabled() && exit !== undefined) process.exitCode = exit;
    return super.catch(cli);
  }
}
