import { Api, ApiError, keyNotChecked, keyRefused } from './api.js';
import { type AxleConfig, updateConfig } from './config.js';
import { deviceLogin, elapsed } from './device-login.js';
import { EXIT } from './exit.js';
import type { Progress } from './progress.js';

/**
 * Whether the stored key still works on this server (GET /account/settings needs the account scope). Only 401 and
 * 403 refuse it; a server too busy or failing to check it throws (exit 1) rather than sending the user to sign in
 * again for a key that may well work.
 */
export async function keyValid(server: string, apiKey: string | undefined): Promise<boolean> {
  if (!apiKey) return false;
  const res = await new Api({ server, apiKey }).raw('GET', '/account/settings');
  if (res.status === 200) return true;
  if (keyRefused(res.status)) return false;
  throw new ApiError(keyNotChecked(res.status), EXIT.FAILED, res.status);
}

/** How often the waiting line is repeated where it cannot be updated in place (a pipe, a log file). */
const WAITING_LINE_EVERY_MS = 30_000;

/**
 * Device sign-in against `server`, saving the key, account and server in ~/.axle/config.json. The code
 * and link go to stderr, then "waiting for approval… m:ss (Ctrl-C to stop)": updated in place on a
 * terminal, repeated every 30 s elsewhere.
 */
export async function signIn(server: string, opts: { openBrowser: boolean; progress: Progress }): Promise<AxleConfig> {
  const say = (line: string) => process.stderr.write(`${line}\n`);
  let lastLine = -1;
  const result = await deviceLogin(new Api({ server }), {
    say,
    openBrowser: opts.openBrowser,
    waiting: (ms) => {
      const line = `waiting for approval… ${elapsed(ms)} (Ctrl-C to stop)`;
      if (opts.progress.live) opts.progress.update(line);
      else if (Math.floor(ms / WAITING_LINE_EVERY_MS) > lastLine) {
        lastLine = Math.floor(ms / WAITING_LINE_EVERY_MS);
        say(line);
      }
    },
  }).finally(() => opts.progress.done());
  return updateConfig((c) => ({
    ...c,
    server,
    api_key: result.api_key,
    account_id: result.account_id,
    email: result.email,
  }));
}
