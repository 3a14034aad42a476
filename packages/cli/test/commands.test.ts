import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareDataDir } from '../../../test/support/backend.js';
import { CLIENT_FILES, writeClientFiles } from './fixtures.js';
import {
  axle,
  axleApprovingDevice,
  CLI_BIN,
  cliEnv,
  eventually,
  logLines,
  mintKey,
  type ServerProcess,
  type Smtp,
  startMailedServer,
  tempHome,
  TRANSCRIPT,
  writeAxleConfig,
} from './helpers.js';

describe('axle commands against a server process', () => {
  let smtp: Smtp;
  let server: ServerProcess;
  let stop: () => Promise<void>;
  beforeAll(async () => {
    ({ smtp, server, stop } = await startMailedServer());
  });
  afterAll(() => stop?.());

  const signedInHome = async (email: string, extra: Record<string, unknown> = {}) => {
    const home = tempHome();
    const key = await mintKey(server.url, smtp, email);
    writeAxleConfig(home, { server: server.url, api_key: key.api_key, email, ...extra });
    return { home, key };
  };

  it('login (device code), whoami and logout, with exit 3 once signed out', async () => {
    const home = tempHome();
    const login = await axleApprovingDevice(['login', '--server', server.url, '--no-browser', '--json'], {
      home,
      server: server.url,
      smtp,
      email: 'login@example.com',
    });
    expect(login.code, login.stderr).toBe(0);
    expect(JSON.parse(login.stdout)).toEqual({
      server: server.url,
      email: 'login@example.com',
      account_id: expect.stringMatching(/^acc_/),
    });

    const who = await axle(['whoami', '--json'], { home });
    expect(who.code).toBe(0);
    expect(JSON.parse(who.stdout)).toMatchObject({ server: server.url, email: 'login@example.com', key_valid: true });

    expect(JSON.parse((await axle(['logout', '--json'], { home })).stdout)).toEqual({ signed_out: true });
    expect(JSON.parse(fs.readFileSync(path.join(home, '.axle/config.json'), 'utf8'))).toEqual({ server: server.url });
    const after = await axle(['whoami'], { home });
    expect(after.code).toBe(3);
    expect(after.stderr).toContain('Not signed in');
  });

  it('whoami: 3 for a key the server refuses, 4 for a server that is not there', async () => {
    const home = tempHome();
    writeAxleConfig(home, { server: server.url, api_key: `axl_${'0'.repeat(43)}` });
    expect((await axle(['whoami'], { home })).code).toBe(3);
    writeAxleConfig(home, { server: 'http://127.0.0.1:9', api_key: `axl_${'0'.repeat(43)}` });
    const down = await axle(['whoami'], { home });
    expect(down.code).toBe(4);
    expect(down.stderr).toContain('cannot reach http://127.0.0.1:9');
  });

  it('kill-switch on|off|status manages ~/.axle/DISABLED', async () => {
    const home = tempHome();
    const sentinel = path.join(home, '.axle/DISABLED');
    expect(JSON.parse((await axle(['kill-switch', 'status', '--json'], { home })).stdout)).toEqual({ disabled: false });
    expect((await axle(['kill-switch', 'on'], { home })).stdout).toContain('capture is disabled');
    expect(fs.existsSync(sentinel)).toBe(true);
    expect(JSON.parse((await axle(['kill-switch', 'status', '--json'], { home })).stdout)).toEqual({ disabled: true });
    expect((await axle(['kill-switch', 'off', '--json'], { home })).code).toBe(0);
    expect(fs.existsSync(sentinel)).toBe(false);
  });

  it('consent grant|revoke record consent on the server with the device key; revoke turns local capture off', async () => {
    const { home, key } = await signedInHome('consent-cli@example.com', {
      capture: { enabled: true, since: '2026-01-01T00:00:00.000Z' },
    });
    const grant = await axle(['consent', 'grant', '--json'], { home });
    expect(grant.code, grant.stderr).toBe(0);
    expect(JSON.parse(grant.stdout)).toMatchObject({
      consent_recorded: true,
      action: 'grant',
      audit_ref: expect.stringMatching(/^aud_/),
    });
    const settings = () =>
      fetch(`${server.url}/account/settings`, { headers: { 'x-api-key': key.api_key } }).then((r) => r.json());
    expect((await settings()).consent_granted).toBe(true);
    const revoke = await axle(['consent', 'revoke', '--json'], { home });
    expect(JSON.parse(revoke.stdout)).toMatchObject({ action: 'revoke' });
    expect((await settings()).consent_granted).toBe(false);
    expect(JSON.parse(fs.readFileSync(path.join(home, '.axle/config.json'), 'utf8')).capture.enabled).toBe(false);
  });

  it('scrub FILE prints the scrubbed text', async () => {
    const home = tempHome();
    const file = path.join(home, 'notes.txt');
    fs.writeFileSync(file, 'token ghp_abcdefghijklmnopqrstuvwxyz0123456789 for jane@example.org\n');
    const r = await axle(['scrub', file], { home });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain('ghp_abcdefghijklmnopqrstuvwxyz0123456789');
    expect(r.stdout).not.toContain('jane@example.org');
    expect(r.stdout).toContain('[REDACTED:email]');
  });

  it('extract FILE shows the drafts and sends nothing without a yes; --yes sends them to POST /learn', async () => {
    const { home } = await signedInHome('extract@example.com');
    const file = path.join(home, 'session.jsonl');
    fs.copyFileSync(TRANSCRIPT, file);
    const dry = await axle(['extract', file, '--json'], { home });
    expect(dry.code, dry.stderr).toBe(0);
    const shown = JSON.parse(dry.stdout);
    expect(shown.drafts).toHaveLength(1);
    expect(shown.drafts[0].title).toMatch(/ERR_MODULE_NOT_FOUND/);
    expect(shown.sent + shown.rejected + shown.queued).toBe(0);
    expect(fs.existsSync(path.join(home, '.axle/queue'))).toBe(false);

    const sent = await axle(['extract', file, '--yes', '--json'], { home });
    const out = JSON.parse(sent.stdout);
    // Every draft left the local queue: accepted by POST /learn, or refused there for good (exit 5).
    expect(out.sent + out.rejected).toBe(1);
    expect(out.queued).toBe(0);
    expect(sent.code).toBe(out.rejected ? 5 : 0);

    const missing = await axle(['extract', path.join(home, 'nope.jsonl')], { home });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('Cannot read');
  });

  it('status: OK after setup, a problem once a client update drops the hook (exit 5)', async () => {
    const { home, key } = await signedInHome('doctor@example.com');
    writeClientFiles(home);
    expect((await axle(['setup', '--yes', '--enable-extraction'], { home })).code).toBe(0);
    // A draft the runner could not send yet.
    fs.mkdirSync(path.join(home, '.axle/queue/pending'), { recursive: true });
    fs.writeFileSync(path.join(home, '.axle/queue/pending/d1.json'), '{}');
    const good = await axle(['status', '--json'], { home });
    const report = JSON.parse(good.stdout);
    expect(good.code, JSON.stringify(report)).toBe(0);
    expect(report.checks.map((c: { name: string }) => c.name)).toEqual(
      expect.arrayContaining([
        'server',
        'key',
        'claude-code: mcp',
        'claude-code: hooks',
        'gemini-cli: hooks',
        'openclaw: mcp',
        'queue',
        'kill switch',
      ]),
    );
    expect(report.checks.find((c: { name: string }) => c.name === 'key').detail).toContain('consent granted');
    expect(report.checks.find((c: { name: string }) => c.name === 'queue').detail).toContain('1 draft(s) not yet sent');
    expect(key.api_key).toMatch(/^axl_/);

    // A client update rewrote its settings without Axle's hook.
    fs.writeFileSync(
      path.join(home, CLIENT_FILES['claude-code-settings']!.file),
      CLIENT_FILES['claude-code-settings']!.text,
    );
    const bad = await axle(['status', '--json'], { home });
    expect(bad.code).toBe(5);
    const hook = JSON.parse(bad.stdout).checks.find((c: { name: string }) => c.name === 'claude-code: hooks');
    expect(hook).toMatchObject({ ok: false, detail: 'missing for SessionEnd, PreCompact: run `axle setup`' });
  });

  it('serve starts the bundled server and stops on SIGTERM', async () => {
    const home = tempHome();
    // A data dir as a first start leaves it (a first start is the server's process.test.ts's).
    const dataDir = path.join(home, 'data');
    fs.mkdirSync(dataDir);
    prepareDataDir(dataDir, 'catalog');
    const child = spawn(process.execPath, [CLI_BIN, 'serve', '--port', '0', '--data-dir', dataDir], {
      env: { ...cliEnv(home), AXLE_SEMANTIC_SEARCH: 'off', LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    const url = await eventually(() => /listening on (http:\/\/\S+)/.exec(out)?.[1], 'the server to listen');
    expect((await fetch(`${url}/health`)).status).toBe(200);
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('daemon: start, extract a new session, pause within a second of the kill switch, skip a malformed line, stop', async () => {
    const { home } = await signedInHome('daemon@example.com', {
      capture: { enabled: true, since: new Date().toISOString() },
    });
    const projects = path.join(home, '.claude/projects/-home-dev');
    fs.mkdirSync(projects, { recursive: true });
    const started = await axle(['daemon', 'start', '--json'], { home });
    expect(started.code, started.stderr).toBe(0);
    const { pid } = JSON.parse(started.stdout);
    try {
      expect(JSON.parse((await axle(['daemon', 'status', '--json'], { home })).stdout)).toMatchObject({
        running: true,
        pid,
      });
      const logFile = path.join(home, '.axle/logs/daemon.log');
      const events = () => logLines(logFile);
      await eventually(() => events().some((e) => e.event === 'watching'), 'the watcher');

      // A session with one malformed line: skipped with a log entry, the rest extracted.
      const text = fs.readFileSync(TRANSCRIPT, 'utf8').split('\n');
      text.splice(2, 0, '{"type": "user", "message": ');
      fs.writeFileSync(path.join(projects, 'a1.jsonl'), text.join('\n'));
      const run = await eventually(
        () => events().find((e) => e.event === 'run' && (e.learnings as number) > 0),
        'a run with learnings',
        30_000,
      );
      expect(run).toMatchObject({ files_processed: 1, learnings: 1 });
      expect(events().find((e) => e.event === 'skipped')).toMatchObject({ stage: 'read:malformed_line' });

      // The sentinel written directly, so the time measured is the daemon's alone.
      const t0 = Date.now();
      fs.writeFileSync(path.join(home, '.axle/DISABLED'), '');
      const paused = await eventually(() => events().find((e) => e.event === 'paused'), 'the pause');
      expect(Date.parse(paused.ts as string) - t0).toBeLessThan(1000);
      expect((await axle(['kill-switch', 'off'], { home })).code).toBe(0);
      await eventually(() => events().filter((e) => e.event === 'watching').length === 2, 'the watcher to resume');
    } finally {
      const stop = await axle(['daemon', 'stop', '--json'], { home });
      expect(JSON.parse(stop.stdout)).toEqual({ stopped: true });
    }
    expect(JSON.parse((await axle(['daemon', 'status', '--json'], { home })).stdout)).toMatchObject({ running: false });
  }, 90_000);

  it('daemon start refuses while background extraction is off (exit 6)', async () => {
    const { home } = await signedInHome('daemon-off@example.com');
    const r = await axle(['daemon', 'start'], { home });
    expect(r.code).toBe(6);
    expect(r.stderr).toContain('Background extraction is off');
  });
});
