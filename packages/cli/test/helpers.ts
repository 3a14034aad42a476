import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';
import { prepareDataDir } from '../../../test/support/backend.js';
import { linkIn, type Smtp, startSmtp } from '../../../test/support/identity.js';
import { listeningUrl, serverProcessEnv } from '../../../test/support/process.js';

export { startSmtp, type Smtp };

export const CLI_BIN = fileURLToPath(new URL('../bin/run.js', import.meta.url));
export const HOOK_BIN = fileURLToPath(new URL('../bin/axle-hook.js', import.meta.url));
const SERVER_MAIN = fileURLToPath(new URL('../../server/dist/main.js', import.meta.url));

export interface ServerProcess {
  url: string;
  dataDir: string;
  stop(): Promise<void>;
}

/** The built server as its own process (as `npm start` runs it), on a free loopback port, its catalog imported. */
export async function startServerProcess(env: Record<string, string> = {}): Promise<ServerProcess> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'axle-cli-server-'));
  prepareDataDir(dataDir, env.AXLE_CATALOG ? 'migrated' : 'catalog');
  const child = spawn(process.execPath, [SERVER_MAIN], {
    env: serverProcessEnv(dataDir, env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const url = await listeningUrl(child);
  return {
    url,
    dataDir,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A mail server and a server process that sends its mail there; `stop` ends both. */
export async function startMailedServer(
  env: Record<string, string> = {},
): Promise<{ smtp: Smtp; server: ServerProcess; stop(): Promise<void> }> {
  const smtp = await startSmtp();
  const server = await startServerProcess({ AXLE_SMTP_URL: smtp.url, ...env });
  return {
    smtp,
    server,
    async stop() {
      await server.stop();
      await smtp.close();
    },
  };
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Environment of a CLI run: only HOME decides where configs live (no XDG or client overrides leak in), and
 * no display, so no run opens a browser on the desktop of whoever runs the tests.
 */
export function cliEnv(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, USERPROFILE: home, ...extra };
  for (const k of ['XDG_CONFIG_HOME', 'CLAUDE_CONFIG_DIR', 'CODEX_HOME', 'APPDATA', 'DISPLAY', 'WAYLAND_DISPLAY'])
    if (!(k in extra)) delete env[k];
  return env;
}

/** Runs `axle …` as a separate process; `onStderr` sees stderr as it arrives (device codes). */
export function axle(
  args: string[],
  opts: {
    home: string;
    input?: string;
    env?: Record<string, string>;
    onStderr?: (text: string, child: ChildProcess) => void;
    bin?: string;
  },
): Promise<RunResult> {
  const child = spawn(process.execPath, [opts.bin ?? CLI_BIN, ...args], {
    env: cliEnv(opts.home, opts.env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => (stdout += c));
  child.stderr.on('data', (c) => {
    stderr += c;
    opts.onStderr?.(stderr, child);
  });
  child.stdin.end(opts.input ?? '');
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

/**
 * Approves a device code the way a person does on the /device page, over plain HTTP: ask for a sign-in
 * link there (real SMTP), open the link in the same "browser" (it redirects to the approval, carrying its
 * token), press Approve.
 */
export async function approveDevice(server: string, smtp: Smtp, email: string, userCode: string): Promise<void> {
  const origin = new URL(server).origin;
  const formHeaders = { 'content-type': 'application/x-www-form-urlencoded', origin };
  const signIn = await fetch(`${server}/device/sign-in`, {
    method: 'POST',
    headers: formHeaders,
    body: form({ email, user_code: userCode }),
  });
  if (signIn.status !== 200) throw new Error(`device sign-in: ${signIn.status}`);
  // The cookie that binds the mailed link to the browser that asked for it, as a browser keeps it.
  const cookie = /(axle_device_ask=[^;]+)/.exec(signIn.headers.get('set-cookie') ?? '')?.[1] ?? '';
  const approval = await fetch(linkIn(smtp.lastTo(email)!), { headers: { accept: 'text/html', cookie } });
  const page = await approval.text();
  const link = /name="link" value="([^"]+)"/.exec(page)?.[1];
  if (!link) throw new Error(`no approval for the link (${approval.status}): ${page.slice(0, 300)}`);
  const done = await fetch(`${server}/device`, {
    method: 'POST',
    headers: { ...formHeaders, cookie },
    body: form({ user_code: userCode, link, decision: 'approve' }),
  });
  if (done.status !== 200) throw new Error(`approve: ${done.status}`);
}

/** The user code the CLI printed, once it has. */
export const userCodeIn = (stderr: string) => /Your sign-in code: ([A-Z]{4}-[A-Z]{4})/.exec(stderr)?.[1];

/**
 * Runs `axle …` that signs in by device code, approving the code it prints as `email` with `approve`
 * (over HTTP unless told otherwise); resolves once both the run and the approval are done.
 */
export async function axleApprovingDevice(
  args: string[],
  opts: { home: string; server: string; smtp: Smtp; email: string; approve?: typeof approveDevice },
): Promise<RunResult> {
  const approve = opts.approve ?? approveDevice;
  let approving: Promise<void> | undefined;
  const run = await axle(args, {
    home: opts.home,
    onStderr: (text) => {
      const code = userCodeIn(text);
      if (code && !approving) approving = approve(opts.server, opts.smtp, opts.email, code);
    },
  });
  await approving;
  return run;
}

/** A key for `email` by magic link and POST /account/api-keys (for tests that start signed in). */
export async function mintKey(server: string, smtp: Smtp, email: string): Promise<{ api_key: string; id: string }> {
  const post = (p: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(server + p, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  await post('/auth/magic-link', { email });
  const { token } = (await (await fetch(linkIn(smtp.lastTo(email)!))).json()) as { token: string };
  return (await (
    await post('/account/api-keys', { name: 'cli test' }, { authorization: `Bearer ${token}` })
  ).json()) as { api_key: string; id: string };
}

export function writeAxleConfig(home: string, config: Record<string, unknown>): void {
  fs.mkdirSync(path.join(home, '.axle'), { recursive: true });
  fs.writeFileSync(path.join(home, '.axle', 'config.json'), JSON.stringify(config));
}

/** The HOMEs tempHome made in this test file, removed after its tests (after every other afterAll: hooks run as a stack). */
const homes: string[] = [];
afterAll(() => {
  for (const home of homes.splice(0)) fs.rmSync(home, { recursive: true, force: true });
});

export const tempHome = () => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'axle-cli-home-'));
  homes.push(home);
  return home;
};

/** A Claude Code session transcript (from the extractor's fixtures) the built-in extractor finds one learning in. */
export const TRANSCRIPT = new URL('../../extractor/test/fixtures/claude-code-session.jsonl', import.meta.url);

/** A HOME signed in to `server` with capture on, and a Claude Code session transcript in its projects folder. */
export function captureHome(server: string, apiKey: string, since = new Date(Date.now() - 3600_000).toISOString()) {
  const home = tempHome();
  writeAxleConfig(home, { server, api_key: apiKey, capture: { enabled: true, since } });
  const transcript = path.join(home, '.claude/projects/-home-dev-api/5b0c3e2a.jsonl');
  fs.mkdirSync(path.dirname(transcript), { recursive: true });
  fs.copyFileSync(TRANSCRIPT, transcript);
  return { home, transcript };
}

export const hookInput = (transcript: string) =>
  JSON.stringify({
    session_id: '5b0c3e2a',
    transcript_path: transcript,
    cwd: '/home/dev/api',
    hook_event_name: 'SessionEnd',
    reason: 'exit',
  });

/**
 * The JSON lines a running process has written to a log so far: only complete lines, since the
 * writer may be in the middle of appending one.
 */
export function logLines(file: string): Array<Record<string, unknown>> {
  if (!fs.existsSync(file)) return [];
  const text = fs.readFileSync(file, 'utf8');
  return text
    .slice(0, text.lastIndexOf('\n') + 1)
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** Waits for `check` to hold, for processes that run on their own (the daemon); fails with `what`. */
export async function eventually<T>(check: () => T | undefined | false, what: string, timeoutMs = 20_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = check();
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
