import { spawn } from 'node:child_process';
import { hostname } from 'node:os';
import { type Api, ApiError, terminalLine } from './api.js';
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

/**
 * The sign-in page a server names, as a URL the CLI may show and open: http or https only (an opener given `file:`,
 * or a scheme some local program handles, would do what the server chose), or undefined.
 */
export function signInLink(text: unknown): string | undefined {
  if (typeof text !== 'string') return undefined;
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** Seconds between polls the CLI accepts from a server, and the longest a code may be waited for. */
const POLL_SECONDS = { min: 1, max: 60 };
const MAX_WAIT_SECONDS = 3_600;
/** `value` when it is a number, bounded to [min, max]; `fallback` otherwise. */
const bounded = (value: unknown, min: number, max: number, fallback: number): number =>
  typeof value === 'number' && Number.isFinite(value) ? Math.min(max, Math.max(min, value)) : fallback;

/**
 * Opens an http(s) URL in the default browser; false when the opener could not be started (the link is printed
 * anyway). Windows gets the URL handler directly, not through `cmd /c start`, whose parser would run what follows an
 * `&` in the URL as a command.
 */
function openUrl(url: string): boolean {
  const [cmd, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['rundll32', ['url.dll,FileProtocolHandler', url]]
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

/** Loopback names of one machine (a local server's page says localhost while --server says 127.0.0.1). */
const LOOPBACK = /^(localhost|127\.0\.0\.1|\[::1\])(:|$)/;
const sameHost = (a: string, b: string): boolean =>
  a === b || (LOOPBACK.test(a) && LOOPBACK.test(b) && a.replace(LOOPBACK, '$2') === b.replace(LOOPBACK, '$2'));

const NOT_AXLE = 'The server did not answer the sign-in request as an Axle server does';

/** The approved sign-in's key and account, checked: they are saved, sent as a header and shown later. */
async function signedIn(body: Record<string, unknown>): Promise<DeviceLoginResult> {
  const { api_key, account_id, email } = body;
  if (typeof api_key !== 'string' || !/^[\x21-\x7e]{1,200}$/.test(api_key)) throw new ApiError(NOT_AXLE, EXIT.FAILED);
  if (typeof account_id !== 'string' || typeof email !== 'string') throw new ApiError(NOT_AXLE, EXIT.FAILED);
  return { api_key, account_id: await terminalLine(account_id), email: await terminalLine(email) };
}

/**
 * RFC 8628 sign-in: asks the server for a device code, shows verification_uri and user_code, opens
 * the browser when it can, then polls every `interval` seconds (longer after slow_down) until the
 * person approves, denies, or the code expires.
 */
export async function deviceLogin(api: Api, opts: DeviceLoginOptions): Promise<DeviceLoginResult> {
  // A 2xx answer that is not a JSON object (a proxy's page, say) has no fields: it fails the checks below.
  const start =
    (await api.call<{
      device_code: string;
      user_code: string;
      verification_uri: string;
      verification_uri_complete?: string;
      expires_in: number;
      interval: number;
    }>('POST', '/auth/device/code', { client_name: `axle CLI on ${hostname()}` })) ?? {};
  // What the server sent is checked before it is shown, opened or waited on: it may not be the server meant.
  const link = signInLink(start.verification_uri_complete) ?? signInLink(start.verification_uri);
  const code = typeof start.user_code === 'string' ? await terminalLine(start.user_code) : '';
  if (link === undefined || code === '' || typeof start.device_code !== 'string')
    throw new ApiError(NOT_AXLE, EXIT.FAILED);
  opts.say(`Your sign-in code: ${code}`);
  opts.say(`Open ${link} and check that it shows this code.`);
  // A server may name the device page of another service (whose code its operator asked for): approving there would
  // hand that operator a key to the account there. The person is told before opening it.
  const pageHost = new URL(link).host;
  const serverHost = URL.canParse(api.server) ? new URL(api.server).host : api.server;
  if (!sameHost(pageHost, serverHost))
    opts.say(
      `That page is on ${pageHost}, not on ${serverHost}, the server you are signing in to: approve there only if you expected that.`,
    );
  const opened = opts.openBrowser && hasDisplay() && openUrl(link);
  if (opened) opts.say('(opened in your browser)');
  let interval = bounded(start.interval, POLL_SECONDS.min, POLL_SECONDS.max, 5);
  const shownAt = Date.now();
  const deadline = shownAt + bounded(start.expires_in, 1, MAX_WAIT_SECONDS, 900) * 1000;
  while (Date.now() < deadline) {
    for (let waited = 0; waited < interval * 1000; waited += 1000) {
      opts.waiting(Date.now() - shownAt);
      await sleep(1000);
    }
    const res = await api.raw('POST', '/auth/device/token', { device_code: start.device_code });
    if (res.status === 200 && typeof res.body?.api_key === 'string') return signedIn(res.body);
    const error = res.body?.error;
    if (res.status === 400 && error === 'authorization_pending') continue;
    if (res.status === 400 && error === 'slow_down') {
      interval = bounded(res.body?.interval, interval, POLL_SECONDS.max, Math.min(interval + 5, POLL_SECONDS.max));
      continue;
    }
    if (error === 'access_denied')
      throw new ApiError('Sign-in was denied on the device page', EXIT.DECLINED, res.status, res.body);
    if (error === 'expired_token')
      throw new ApiError('The sign-in code expired; run the command again', EXIT.AUTH, res.status, res.body);
    if (res.status === 400)
      throw new ApiError(`Sign-in failed: ${await terminalLine(String(error))}`, EXIT.AUTH, res.status, res.body);
    // 429 or a server error: wait longer and try again until the code expires.
    interval = Math.min(interval + 5, POLL_SECONDS.max);
  }
  throw new ApiError('The sign-in code expired; run the command again', EXIT.AUTH);
}
