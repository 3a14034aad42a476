import { Api } from './api.js';
import { type AxleConfig, updateConfig } from './config.js';
import { deviceLogin } from './device-login.js';

/** Whether the stored key still works on this server (GET /account/settings needs the account scope). */
export async function keyValid(server: string, apiKey: string | undefined): Promise<boolean> {
  if (!apiKey) return false;
  const res = await new Api({ server, apiKey }).raw('GET', '/account/settings');
  return res.status === 200;
}

/** Device sign-in against `server`, saving the key, account and server in ~/.axle/config.json. */
export async function signIn(
  server: string,
  opts: { say: (s: string) => void; openBrowser: boolean },
): Promise<AxleConfig> {
  const result = await deviceLogin(new Api({ server }), opts);
  return updateConfig((c) => ({
    ...c,
    server,
    api_key: result.api_key,
    account_id: result.account_id,
    email: result.email,
  }));
}
