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
  /** Called about once a second while waiting, with the time since the code was shown. */
  waiting: (elapsedMs: number) => void;
  openBrowser: boolean;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Whether a browser can be shown: macOS and Windows always have a desktop; elsewhere only an X11 or
 * Wayland session can display one (over SSH or in a container, xdg-open would start a text browser or
 * a headless one that writes its profile into HOME).
 */
export function hasDisplay(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): boolean {
  return platform === 'darwin' || platform === 'win32' || Boolean(env.DISPLAY || env.WAYLAND_DISPLAY);
}

/** `m:ss` (or `h:mm:ss`) for a waiting line. */
export function elapsed(ms: number): string {
  const total = Math.floor(ms / 1000);
  const [h, m, s] = [Math.floor(total / 3600), Math.floor(total / 60) % 60, total % 60];
  const pad = (n: number) => String(n).padStart(2, '0');
  return h > 0 ? `${h}:${pad(m)}:${pad(s)}` : `${m}:${pad(s)}`;
}

/** Opens a URL in the default browser; false when the opener could not be started (the link is printed anyway). */
function openUrl(url: string): boolean {
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
    return child.pid !== undefined;
  } catch {
    return false;
  }
}

/**
 * RFC 8628 sign-in: asks the server for a device code, shows verification_uri and user_code, opens
 * the browser when it can, then polls every `interval` seconds (longer after slow_down) until the
 * person approves, denies, or the code expires.
 */
export async function deviceLogin(api: Api, opts: DeviceLoginOptions): Promise<DeviceLoginResult> {
  const start = await api.call<{
    device_code: string;
    user_code: string;
    verification_uri: string;
    verification_uri_complete?: string;
    expires_in: number;
    interval: number;
  }>('POST', '/auth/device/code', { client_name: `axle CLI on ${hostname()}` });
  const link = start.verification_uri_complete ?? start.verification_uri;
  opts.say(`Your sign-in code: ${start.user_code}`);
  opts.say(`Open ${link} and check that it shows this code.`);
  const opened = opts.openBrowser && hasDisplay() && openUrl(link);
  if (opened) opts.say('(opened in your browser)');
  let interval = Math.max(1, start.interval);
  const shownAt = Date.now();
  const deadline = shownAt + start.expires_in * 1000;
  while (Date.now() < deadline) {
    for (let waited = 0; waited < interval * 1000; waited += 1000) {
      opts.waiting(Date.now() - shownAt);
      await sleep(1000);
    }
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
