// The toolkit's own files and the clients' files on a machine set up unusually: a config.json left world-readable,
// client configs that are symlinks into a dotfiles folder, a second daemon started beside a running one.
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { axle, CLI_BIN, cliEnv, eventually, TRANSCRIPT, tempHome, writeAxleConfig } from './helpers.js';

const KEY = `axl_${'k'.repeat(43)}`;
const modeOf = (file: string) => fs.statSync(file).mode & 0o777;

describe('local files against a stand-in server', () => {
  let server: http.Server;
  let url: string;
  /** Route -> requests the stand-in got. */
  let asked: Record<string, number>;
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      req.resume();
      const route = `${req.method} ${new URL(req.url ?? '/', 'http://stand-in').pathname}`;
      asked[route] = (asked[route] ?? 0) + 1;
      const answers: Record<string, unknown> = {
        'GET /account/settings': { consent_granted: false },
        'POST /auth/device/code': {
          device_code: 'd',
          user_code: 'ABCD-EFGH',
          verification_uri: `${url}/device`,
          expires_in: 30,
          interval: 1,
        },
        'POST /auth/device/token': { api_key: KEY, account_id: 'acc_1', email: 'me@example.com' },
        'DELETE /account/api-key': { revoked: true },
      };
      const body = answers[route];
      res.writeHead(body ? 200 : 404, { 'content-type': 'application/json' }).end(JSON.stringify(body ?? {}));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    asked = {};
  });

  it('login writes the key into a config.json that was world-readable owner-only', async () => {
    const home = tempHome();
    writeAxleConfig(home, { server: url });
    const config = path.join(home, '.axle/config.json');
    fs.chmodSync(config, 0o644);
    const out = await axle(['login', '--server', url, '--no-browser'], { home });
    expect(out.code, out.stderr).toBe(0);
    expect(JSON.parse(fs.readFileSync(config, 'utf8')).api_key).toBe(KEY);
    expect(modeOf(config)).toBe(0o600);
  });

  it('setup edits a symlinked client config through the link, and undo restores the file it points to', async () => {
    const home = tempHome();
    writeAxleConfig(home, { server: url, api_key: KEY });
    const dotfiles = path.join(home, 'dotfiles');
    fs.mkdirSync(dotfiles);
    fs.mkdirSync(path.join(home, '.cursor'));
    const original = '{\n  "mcpServers": {\n    "other": { "command": "other-mcp" }\n  }\n}\n';
    const target = path.join(dotfiles, 'cursor-mcp.json');
    fs.writeFileSync(target, original, { mode: 0o644 });
    const link = path.join(home, '.cursor/mcp.json');
    fs.symlinkSync('../dotfiles/cursor-mcp.json', link);
    // A link whose target does not exist yet (a dotfiles checkout that is not there): setup creates the target.
    fs.mkdirSync(path.join(home, '.codeium/windsurf'), { recursive: true });
    const dangling = path.join(home, '.codeium/windsurf/mcp_config.json');
    fs.symlinkSync('../../dotfiles/windsurf.json', dangling);

    const setup = await axle(['setup', '--yes', '--no-browser'], { home });
    expect(setup.code, setup.stderr).toBe(0);
    expect(fs.lstatSync(link).isSymbolicLink()).toBe(true);
    expect(fs.lstatSync(dangling).isSymbolicLink()).toBe(true);
    for (const file of [target, path.join(dotfiles, 'windsurf.json')]) {
      expect(JSON.parse(fs.readFileSync(file, 'utf8')).mcpServers.axle.env.SVC_API_KEY).toBe(KEY);
      expect(modeOf(file)).toBe(0o600);
    }
    expect(JSON.parse(fs.readFileSync(target, 'utf8')).mcpServers.other).toEqual({ command: 'other-mcp' });

    const undo = await axle(['setup', '--undo', '--yes'], { home });
    expect(undo.code, undo.stderr).toBe(0);
    expect(fs.lstatSync(link).isSymbolicLink()).toBe(true);
    expect(fs.readFileSync(target, 'utf8')).toBe(original);
    expect(modeOf(target)).toBe(0o644);
    expect(fs.readdirSync(path.join(home, '.cursor'))).toEqual(['mcp.json']);
    // The file setup created behind the dangling link is gone again; the link stays as it was.
    expect(fs.existsSync(path.join(dotfiles, 'windsurf.json'))).toBe(false);
    expect(fs.lstatSync(dangling).isSymbolicLink()).toBe(true);
  });

  // Found by a VS Code mcp.json saved by Windows PowerShell (UTF-8 with a byte order mark, CRLF): VS Code reads it,
  // setup reported it 'unreadable (InvalidSymbol at line 1)' and left it without axle (exit 5), status the same.
  it('edits a client config that starts with a byte order mark, keeps the mark, and undo restores the file', async () => {
    const home = tempHome();
    writeAxleConfig(home, { server: url, api_key: KEY });
    const file = path.join(home, '.config/Code/User/mcp.json');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const original = '\uFEFF{\r\n  "servers": {\r\n    "fs": { "type": "stdio", "command": "fs-mcp" }\r\n  }\r\n}\r\n';
    fs.writeFileSync(file, original);
    const setup = await axle(['setup', '--yes', '--no-browser'], { home });
    expect(setup.code, setup.stderr).toBe(0);
    const written = fs.readFileSync(file, 'utf8');
    expect(written.startsWith('\uFEFF{')).toBe(true);
    expect(Object.keys(JSON.parse(written.slice(1)).servers)).toEqual(['axle', 'fs']);
    const status = await axle(['status', '--json'], { home });
    expect(status.stdout).not.toContain('axle is not registered');
    const undo = await axle(['setup', '--undo', '--yes'], { home });
    expect(undo.code, undo.stderr).toBe(0);
    expect(fs.readFileSync(file, 'utf8')).toBe(original);
  });

  // Found with HOME on a full 64 KiB tmpfs: a '.mcp.json.<hex>.tmp' stayed in ~/.cursor, and setup ended on a bare
  // 'ENOSPC: no space left on device, write' naming no file. A file size limit (ulimit -f) fails the write alike.
  it('a client config it cannot write is left as it was, with no temporary file beside it, and named', async () => {
    const home = tempHome();
    writeAxleConfig(home, { server: url, api_key: KEY });
    fs.mkdirSync(path.join(home, '.cursor'));
    const file = path.join(home, '.cursor/mcp.json');
    // Under the 1 KiB limit as it is; over it once axle's entry is added.
    const original = `{ "mcpServers": { "other": { "command": "other-mcp", "args": ["${'a'.repeat(800)}"] } } }\n`;
    fs.writeFileSync(file, original);
    // bash counts `ulimit -f` in KiB (sh may count 512-byte blocks).
    const child = spawn('bash', ['-c', 'ulimit -f 1; exec "$0" "$@"', process.execPath, CLI_BIN, 'setup', '--yes'], {
      env: cliEnv(home),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const code = await new Promise((resolve) => child.once('close', resolve));
    expect(code, stderr).toBe(1);
    expect(stderr.replace(/\s+›?\s*/g, ' ')).toContain(`Could not write ${file} (EFBIG); it is as it was`);
    expect(fs.readFileSync(file, 'utf8')).toBe(original);
    expect(fs.readdirSync(path.join(home, '.cursor')).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });

  // Found by setup then undo on a Codex config.toml whose last line had no line break: undo left one there.
  it('undo restores a Codex config.toml that did not end with a line break byte for byte', async () => {
    const home = tempHome();
    writeAxleConfig(home, { server: url, api_key: KEY });
    fs.mkdirSync(path.join(home, '.codex'));
    const file = path.join(home, '.codex/config.toml');
    fs.writeFileSync(file, 'model = "o4-mini"');
    const setup = await axle(['setup', '--yes'], { home });
    expect(setup.code, setup.stderr).toBe(0);
    expect(fs.readFileSync(file, 'utf8')).toContain('[mcp_servers.axle]');
    const undo = await axle(['setup', '--undo', '--yes'], { home });
    expect(undo.code, undo.stderr).toBe(0);
    expect(fs.readFileSync(file, 'utf8')).toBe('model = "o4-mini"');
  });

  it('setup and undo report a client config they cannot read and go on with the others (exit 5)', async () => {
    const home = tempHome();
    writeAxleConfig(home, { server: url, api_key: KEY });
    // Where Cursor's file should be there is a folder (as unreadable as a file another user owns).
    fs.mkdirSync(path.join(home, '.cursor/mcp.json'), { recursive: true });
    fs.mkdirSync(path.join(home, '.gemini'));
    fs.writeFileSync(path.join(home, '.gemini/settings.json'), '{ "theme": "GitHub" }\n');

    const setup = await axle(['setup', '--yes', '--no-browser', '--json'], { home });
    expect(setup.code, setup.stderr).toBe(5);
    const clients = (JSON.parse(setup.stdout) as { clients: Array<{ id: string; mcp: string; problem?: string }> })
      .clients;
    expect(clients.find((c) => c.id === 'cursor')).toMatchObject({
      mcp: 'corrupt',
      problem: 'cannot be read (EISDIR)',
    });
    expect(clients.find((c) => c.id === 'gemini-cli')).toMatchObject({ mcp: 'added' });
    expect(JSON.parse(fs.readFileSync(path.join(home, '.gemini/settings.json'), 'utf8')).mcpServers.axle).toBeDefined();

    const status = await axle(['status'], { home });
    expect(status.code, status.stderr).toBe(5);
    expect(status.stdout).toContain(`${path.join(home, '.cursor/mcp.json')} cannot be read (EISDIR)`);

    const undo = await axle(['setup', '--undo', '--yes'], { home });
    expect(undo.code, undo.stderr).toBe(5);
    expect(fs.readFileSync(path.join(home, '.gemini/settings.json'), 'utf8')).toBe('{ "theme": "GitHub" }\n');
    expect(fs.statSync(path.join(home, '.cursor/mcp.json')).isDirectory()).toBe(true);
  });

  it('leaves a client config whose server list appears twice untouched: the client reads the last one', async () => {
    const home = tempHome();
    writeAxleConfig(home, { server: url, api_key: KEY });
    fs.mkdirSync(path.join(home, '.cursor'));
    const file = path.join(home, '.cursor/mcp.json');
    const text =
      '{\n  "mcpServers": { "old": { "command": "old-mcp" } },\n  "mcpServers": { "new": { "command": "new-mcp" } }\n}\n';
    fs.writeFileSync(file, text);
    const setup = await axle(['setup', '--yes', '--no-browser', '--json'], { home });
    expect(setup.code, setup.stderr).toBe(5);
    const clients = (JSON.parse(setup.stdout) as { clients: Array<{ id: string; mcp: string; problem?: string }> })
      .clients;
    expect(clients.find((c) => c.id === 'cursor')).toMatchObject({
      mcp: 'conflict',
      problem: '"mcpServers" appears more than once',
    });
    expect(fs.readFileSync(file, 'utf8')).toBe(text);
  });

  it('leaves a client config made read-only untouched (exit 5), as an editor would', async () => {
    const home = tempHome();
    writeAxleConfig(home, { server: url, api_key: KEY });
    fs.mkdirSync(path.join(home, '.cursor'));
    const file = path.join(home, '.cursor/mcp.json');
    const text = '{ "mcpServers": { "managed": { "command": "managed-mcp" } } }\n';
    fs.writeFileSync(file, text);
    fs.chmodSync(file, 0o444);
    const setup = await axle(['setup', '--yes', '--no-browser', '--json'], { home });
    expect(setup.code, setup.stderr).toBe(5);
    const clients = (JSON.parse(setup.stdout) as { clients: Array<{ id: string; mcp: string; problem?: string }> })
      .clients;
    expect(clients.find((c) => c.id === 'cursor')).toMatchObject({ mcp: 'conflict', problem: 'is read-only' });
    expect(fs.readFileSync(file, 'utf8')).toBe(text);
    expect(modeOf(file)).toBe(0o444);
    expect(fs.existsSync(`${file}.axle-backup`)).toBe(false);
  });

  // Found by running failing commands with --json: each ended with exit 1, whatever its documented code.
  it('ends with the same exit codes under --json, with the error as JSON on stdout', async () => {
    const home = tempHome();
    const expectExit = async (args: string[], code: number) => {
      const out = await axle([...args, '--json'], { home });
      expect(out.code, `${args.join(' ')}: ${out.stdout}`).toBe(code);
      expect(JSON.parse(out.stdout).error.message).toBeTruthy();
    };
    await expectExit(['whoami'], 3);
    await expectExit(['login', '--server', 'localhost:8402'], 2);
    await expectExit(['review', '--no-such-flag'], 2);
    writeAxleConfig(home, { server: 'http://127.0.0.1:9', api_key: KEY });
    await expectExit(['whoami'], 4);
  });

  // Found with a folder where ~/.axle/config.json should be: 'Error: EISDIR: illegal operation on a directory, read'.
  it('names ~/.axle/config.json when it cannot be read, as when it is not JSON', async () => {
    const home = tempHome();
    const config = path.join(home, '.axle/config.json');
    fs.mkdirSync(config, { recursive: true });
    const out = await axle(['status'], { home });
    expect(out.code).toBe(1);
    expect(out.stderr.replace(/\s+›?\s*/g, ' ')).toContain(`${config} cannot be read (EISDIR); fix or delete it`);
  });

  // Found by `axle login --server localhost:8402` against a running server: exit 4, "cannot reach … (fetch failed)".
  it('takes a server address without http:// or https:// as a usage error that shows the form (exit 2)', async () => {
    const home = tempHome();
    fs.mkdirSync(path.join(home, '.cursor'));
    const bare = url.replace(/^http:\/\//, '');
    for (const args of [['login'], ['setup', '--yes']]) {
      const out = await axle([...args, '--server', bare, '--no-browser'], { home });
      expect(out.code, out.stderr).toBe(2);
      expect(out.stderr.replace(/\s+›\s+/g, ' ')).toContain(
        `${bare} is not a server address: give its URL, like http://localhost:8402`,
      );
    }
    writeAxleConfig(home, { server: 'ftp://files.example', api_key: KEY });
    const saved = await axle(['whoami'], { home });
    expect(saved.code, saved.stderr).toBe(2);
    // Undo still removes what setup added; only revoking the key there fails.
    const undo = await axle(['setup', '--undo', '--yes'], { home });
    expect(undo.code, undo.stderr).toBe(5);
    expect(undo.stderr).toContain('Could not revoke the saved key on ftp://files.example');
    expect(asked).toEqual({});
    expect(fs.readdirSync(path.join(home, '.cursor'))).toEqual([]);
  });
});

describe('axle extract with drafts already waiting in the queue', () => {
  let server: http.Server;
  let url: string;
  /** Titles of the learnings POST /learn got. */
  const learned: string[] = [];
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        if (req.url === '/learn') learned.push((JSON.parse(body) as { title: string }).title);
        res.writeHead(201, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ id: `lrn_${learned.length}`, status: 'pending_review' }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('sends the drafts it showed and asked about, not a draft the runner left queued after capture was switched off', async () => {
    const home = tempHome();
    // Capture was on, the server was down when the runner ran, then consent was revoked (capture off).
    writeAxleConfig(home, { server: url, api_key: KEY, capture: { enabled: false, since: new Date().toISOString() } });
    const pending = path.join(home, '.axle/queue/pending');
    fs.mkdirSync(pending, { recursive: true });
    const waiting = {
      id: '20260101T000000000Z-aaaaaaaa',
      created_at: '2026-01-01T00:00:00.000Z',
      source: 'claude-code',
      attempts: 2,
      last_error: 'network: connect ECONNREFUSED',
      draft: {
        title: 'A draft from a session captured before consent was revoked',
        body: 'Captured while background extraction was on; its consent has since been withdrawn by the person.',
        category: 'code-execution',
        tags: ['node'],
        task_context: 'an earlier session',
        outcome: 'success',
        quality_self_assessment: { specificity: 4, actionability: 4, novelty: 4, completeness: 4 },
      },
    };
    fs.writeFileSync(path.join(pending, `${waiting.id}.json`), JSON.stringify(waiting), { mode: 0o600 });

    const out = await axle(['extract', fileURLToPath(TRANSCRIPT), '--yes', '--json'], { home });
    expect(out.code, out.stderr).toBe(0);
    const { drafts, sent } = JSON.parse(out.stdout) as { drafts: Array<{ title: string }>; sent: number };
    expect(learned).toEqual(drafts.map((d) => d.title));
    expect(sent).toBe(drafts.length);
    expect(fs.existsSync(path.join(pending, `${waiting.id}.json`))).toBe(true);
  });
});

describe('the capture daemon', () => {
  const started: ChildProcess[] = [];
  afterAll(async () => {
    for (const child of started)
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGKILL');
        await exited;
      }
  });

  /** `axle daemon run` in the foreground, as `daemon start` runs it; resolves its exit code. */
  function daemonRun(home: string): { child: ChildProcess; exit: Promise<number | null>; output: () => string } {
    const child = spawn(process.execPath, [CLI_BIN, 'daemon', 'run'], {
      env: cliEnv(home),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    started.push(child);
    let output = '';
    child.stdout!.on('data', (c) => (output += c));
    child.stderr!.on('data', (c) => (output += c));
    return { child, exit: new Promise((r) => child.once('exit', (code) => r(code))), output: () => output };
  }

  const captureOn = (home: string) =>
    writeAxleConfig(home, { capture: { enabled: true, since: new Date().toISOString() } });

  it('a second daemon refuses while one runs, so stop ends the only one there is', async () => {
    const home = tempHome();
    captureOn(home);
    const pidFile = path.join(home, '.axle/daemon.pid');
    const first = daemonRun(home);
    await eventually(() => first.output().includes('"watching"'), 'the first daemon to watch');
    expect(fs.readFileSync(pidFile, 'utf8').trim()).toBe(String(first.child.pid));

    const second = daemonRun(home);
    expect(await second.exit).toBe(1);
    expect(second.output()).toContain(`already running (pid ${first.child.pid})`);
    expect(fs.readFileSync(pidFile, 'utf8').trim()).toBe(String(first.child.pid));

    const stop = await axle(['daemon', 'stop', '--json'], { home });
    expect(JSON.parse(stop.stdout)).toEqual({ stopped: true });
    expect(await first.exit).toBe(0);
    expect(fs.existsSync(pidFile)).toBe(false);
  }, 60_000);

  it("a killed daemon's pid file does not keep the next one from starting", async () => {
    const home = tempHome();
    captureOn(home);
    const pidFile = path.join(home, '.axle/daemon.pid');
    const first = daemonRun(home);
    await eventually(() => first.output().includes('"watching"'), 'the first daemon to watch');
    first.child.kill('SIGKILL');
    await first.exit;
    expect(fs.existsSync(pidFile)).toBe(true);

    const next = daemonRun(home);
    await eventually(() => next.output().includes('"watching"'), 'the next daemon to watch');
    expect(fs.readFileSync(pidFile, 'utf8').trim()).toBe(String(next.child.pid));
    next.child.kill('SIGTERM');
    expect(await next.exit).toBe(0);
    expect(fs.existsSync(pidFile)).toBe(false);
  }, 60_000);

  it('a running daemon pauses once consent is revoked, as the hooks stop, and resumes when capture is on again', async () => {
    const consent = http.createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ consent_recorded: true, action: 'revoke', consent_version: '1', audit_ref: 'aud_1' }));
    });
    await new Promise<void>((resolve) => consent.listen(0, '127.0.0.1', resolve));
    try {
      const home = tempHome();
      const server = `http://127.0.0.1:${(consent.address() as AddressInfo).port}`;
      writeAxleConfig(home, { server, api_key: KEY, capture: { enabled: true, since: new Date().toISOString() } });
      const daemon = daemonRun(home);
      await eventually(() => daemon.output().includes('"watching"'), 'the daemon to watch');

      const revoke = await axle(['consent', 'revoke'], { home });
      expect(revoke.code, revoke.stderr).toBe(0);
      await eventually(() => daemon.output().includes('"reason":"capture off"'), 'the daemon to pause');

      writeAxleConfig(home, { server, api_key: KEY, capture: { enabled: true, since: new Date().toISOString() } });
      await eventually(() => daemon.output().split('"watching"').length === 3, 'the daemon to resume');
      daemon.child.kill('SIGTERM');
      expect(await daemon.exit).toBe(0);
    } finally {
      await new Promise<void>((resolve) => consent.close(() => resolve()));
    }
  }, 60_000);
});
