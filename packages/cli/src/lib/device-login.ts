import { spawn } from 'node:child_process';
import { hostname } from 'node:os';
import { type Api, ApiError } from './api.js';
import { EXIT } from './exit.js';

export interface DeviceLoginResult {
  api_key: string;
  account_id: string;
  email: string;
}

export interface DeviceLoginOptions {
  /** Where the code and link are shown (stderr, so --json output stays clean). */
  say: (line: string) => void;
  openBrowser: boolean;
  sleep?: (ms: number) => Promise<void>;
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Opens a URL in the default browser when the platform has an opener; failure is silent (the link is printed). */
function openUrl(url: string): void {
  const [cmd, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '""', url]]
        : ['xdg-open', [url]];
  try {
    const child = spawn(cmd as string, args as string[], { detached: true, stdio: 'ignore' });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // no opener: the printed link is enough
  }
}

/**
 * RFC 8628 sign-in: asks the server for a device code, shows verification_uri and user_code, opens
 * the browser when it can, then polls every `interval` seconds (longer after slow_down) until the
 * person approves, denies, or the code expires.
 */
export async function deviceLogin(api: Api, opts: DeviceLoginOptions): Promise<DeviceLoginResult> {
  const sleep = opts.sleep ?? realSleep;
  const start = await api.call<{
    device_code: string;
    user_code: string;
    verification_uri: string;
    verification_uri_complete?: string;
    expires_in: number;
    interval: number;
  }>('POST', '/auth/device/code', { client_name: `axle CLI on ${hostname()}` });
  opts.say(`To sign in, open ${start.verification_uri} and enter the code ${start.user_code}`);
  if (start.verification_uri_complete) opts.say(`(or open ${start.verification_uri_complete})`);
  if (opts.openBrowser) openUrl(start.verification_uri_complete ?? start.verification_uri);
  let interval = Math.max(1, start.interval);
  const deadline = Date.now() + start.expires_in * 1000;
  while (Date.now() < deadline) {
    await sleep(interval * 1000);
    const res = await api.raw('POST', '/auth/device/token', { device_code: start.device_code });
    if (res.status === 200 && typeof res.body?.api_key === 'string') return res.body as unknown as DeviceLoginResult;
    const error = res.body?.error;
    if (res.status === 400 && error === 'authorization_pending') continue;
    if (res.status === 400 && error === 'slow_down') {
      interval = typeof res.body?.interval === 'number' ? res.body.interval : interval + 5;
      continue;
    }
    if (error === 'access_denied')
      throw new ApiError('Sign-in was denied on the device page', EXIT.DECLINED, res.status, res.body);
    if (error === 'expired_token')
      throw new ApiError('The sign-in code expired; run the command again', EXIT.AUTH, res.status, res.body);
    if (res.status === 400) throw new ApiError(`Sign-in failed: ${String(error)}`, EXIT.AUTH, res.status, res.body);
    // 429 or a server error: wait longer and try again until the code expires.
    interval += 5;
  }
  throw new ApiError('The sign-in code expired; run the command again', EXIT.AUTH);
}
