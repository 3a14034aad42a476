import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { listeningUrl, serverProcessEnv } from '../../../test/support/process.js';

// The built server, as `npm start` runs it (npm test builds first via pretest).
const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));

let child: ChildProcess | undefined;
let dataDir: string | undefined;
afterEach(() => {
  if (child?.exitCode === null) child.kill('SIGKILL');
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('built server process', () => {
  it('prints its URL, serves /health and exits 0 on SIGTERM', async () => {
    expect(fs.existsSync(MAIN), `${MAIN} missing: run npx tsc -b first`).toBe(true);
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'axle-proc-'));
    const proc = spawn(process.execPath, [MAIN], {
      env: serverProcessEnv(dataDir),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = proc;
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      proc.once('exit', (code, signal) => resolve({ code, signal })),
    );

    const url = await listeningUrl(proc);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const res = await fetch(`${url}/health`);
    expect(res.status).toBe(200);
    const health = (await res.json()) as { status: string; skills_catalog_size: number; learnings_count: number };
    expect(health.status).toBe('ok');
    expect(health.learnings_count).toBe(0);
    expect(health.skills_catalog_size).toBeGreaterThan(0);
    expect(fs.existsSync(path.join(dataDir, 'axle.db'))).toBe(true);
    // GET / reports when this build was made: the compiler's build-info stamp, not the start time.
    const root = (await (await fetch(url)).json()) as { built: string };
    expect(root.built).toBe(fs.statSync(path.join(path.dirname(MAIN), '.tsbuildinfo')).mtime.toISOString());

    proc.kill('SIGTERM');
    expect(await exited).toEqual({ code: 0, signal: null });
  }, 60_000);

  it('stops when a supervisor sends SIGTERM to `npm start`', async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'axle-proc-'));
    const npm = spawn('npm', ['start'], {
      cwd: fileURLToPath(new URL('../../..', import.meta.url)),
      env: serverProcessEnv(dataDir),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = npm;
    const exited = new Promise<number | null>((resolve) => npm.once('exit', (code) => resolve(code)));
    const url = await listeningUrl(npm);
    expect((await fetch(`${url}/health`)).status).toBe(200);

    // Only npm gets the signal, as from a supervisor that knows one process id; the server must stop with it.
    npm.kill('SIGTERM');
    expect(await exited).toBe(0);
    await expect(fetch(`${url}/health`)).rejects.toThrow();
  }, 60_000);

  it('stops with a message naming the bad entry and field when AXLE_CATALOG is invalid', async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'axle-proc-'));
    const catalog = path.join(dataDir, 'catalog.json');
    fs.writeFileSync(catalog, JSON.stringify([{ id: 'ok-skill', name: 'Ok' }]));
    const proc = spawn(process.execPath, [MAIN], {
      env: serverProcessEnv(dataDir, { AXLE_CATALOG: catalog, LOG_LEVEL: 'info' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = proc;
    let stderr = '';
    proc.stderr!.on('data', (chunk) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => proc.once('exit', (c) => resolve(c)));
    expect(code).toBe(1);
    expect(stderr).toContain(`AXLE_CATALOG ${catalog}: entry 0 (id "ok-skill"): description`);
    expect(stderr).not.toMatch(/\n\s+at /); // a message, not a stack trace
  }, 60_000);
});
