// The launcher (bin/axle-server.js) starts the server with the memory settings that must be set before a process
// starts, and is otherwise invisible: the server's output, exit status and signals pass through, and the server
// never outlives it.
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { memoryLaunchPlan } from '../src/launch/memory-settings.js';
import { prepareDataDir } from '../../../test/support/backend.js';

const BIN = fileURLToPath(new URL('../bin/axle-server.js', import.meta.url));
const onLinux = process.platform === 'linux';

describe('memoryLaunchPlan', () => {
  it('adds the arena bound and the young- and old-generation flags where none is set', () => {
    expect(memoryLaunchPlan({}, [], 'linux')).toEqual({
      env: { MALLOC_ARENA_MAX: '1' },
      flags: ['--max-semi-space-size=2', '--heap-growing-percent=30'],
    });
  });
  it("keeps an operator's own values, from the environment, NODE_OPTIONS or node's flags", () => {
    expect(memoryLaunchPlan({ MALLOC_ARENA_MAX: '4' }, [], 'linux')).toEqual({
      env: {},
      flags: ['--max-semi-space-size=2', '--heap-growing-percent=30'],
    });
    expect(memoryLaunchPlan({ NODE_OPTIONS: '--enable-source-maps --max-semi-space-size=8' }, [], 'linux')).toEqual({
      env: { MALLOC_ARENA_MAX: '1' },
      flags: ['--heap-growing-percent=30'],
    });
    expect(memoryLaunchPlan({}, ['--max-semi-space-size=16', '--heap-growing-percent=100'], 'linux')?.flags).toEqual(
      [],
    );
    expect(memoryLaunchPlan({}, ['--heap-growing-percent=100'], 'linux')?.flags).toEqual(['--max-semi-space-size=2']);
    // A flag that only begins alike is another flag.
    expect(memoryLaunchPlan({}, ['--max-semi-space-size-x=1'], 'linux')?.flags).toEqual([
      '--max-semi-space-size=2',
      '--heap-growing-percent=30',
    ]);
    // Set but empty is unset.
    expect(memoryLaunchPlan({ MALLOC_ARENA_MAX: '' }, [], 'linux')?.env).toEqual({ MALLOC_ARENA_MAX: '1' });
  });
  it('adds nothing when both are in effect, or when told not to', () => {
    // node refuses --heap-growing-percent in NODE_OPTIONS: it is given on node's command line.
    expect(
      memoryLaunchPlan(
        { MALLOC_ARENA_MAX: '1', NODE_OPTIONS: '--max-semi-space-size=2' },
        ['--heap-growing-percent=30'],
        'linux',
      ),
    ).toBe(undefined);
    expect(memoryLaunchPlan({ AXLE_MEMORY_SETTINGS: 'off' }, [], 'linux')).toBe(undefined);
    expect(memoryLaunchPlan({ AXLE_MEMORY_SETTINGS: 'on' }, [], 'linux')?.env).toEqual({ MALLOC_ARENA_MAX: '1' });
  });
  it('refuses a setting that is neither on nor off', () => {
    for (const v of ['', 'no', 'OFF', '0'])
      expect(() => memoryLaunchPlan({ AXLE_MEMORY_SETTINGS: v }, [], 'linux')).toThrow(
        /AXLE_MEMORY_SETTINGS: on or off/,
      );
  });
  it("sets glibc's variable on Linux only", () => {
    for (const platform of ['darwin', 'win32', 'freebsd'])
      expect(memoryLaunchPlan({}, [], platform)).toEqual({
        env: {},
        flags: ['--max-semi-space-size=2', '--heap-growing-percent=30'],
      });
    expect(memoryLaunchPlan({ NODE_OPTIONS: '--max-semi-space-size=2' }, ['--heap-growing-percent=30'], 'darwin')).toBe(
      undefined,
    );
  });
});

interface Launched {
  proc: ChildProcess;
  url: string;
  stderr: () => string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const running: ChildProcess[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const p of running.splice(0)) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/**
 * Runs the bin as a user does, on a data dir as a first start leaves it (process.test.ts covers a first start);
 * resolves once it printed where it listens (or exited).
 */
function launch(env: Record<string, string> = {}, nodeFlags: string[] = []): Promise<Launched> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'axle-launch-'));
  dirs.push(dataDir);
  prepareDataDir(dataDir, 'catalog');
  const proc = spawn(process.execPath, [...nodeFlags, BIN], {
    env: {
      PATH: process.env.PATH ?? '',
      PORT: '0',
      HOST: '127.0.0.1',
      AXLE_DATA_DIR: dataDir,
      AXLE_SEMANTIC_SEARCH: 'off',
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push(proc);
  let out = '';
  let err = '';
  proc.stderr!.on('data', (d) => (err += d));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    proc.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return new Promise((resolve) => {
    proc.stdout!.on('data', (d) => {
      out += d;
      const url = out.match(/listening on (http:\/\/\S+)/)?.[1];
      if (url) resolve({ proc, url: url.replace('localhost', '127.0.0.1'), stderr: () => err, exit });
    });
    exit.then(() => resolve({ proc, url: '', stderr: () => err, exit }));
  });
}

/** launch() for a server that must come up: fails with its exit and output when it exits first. */
async function serve(env: Record<string, string> = {}, nodeFlags: string[] = []): Promise<Launched> {
  const s = await launch(env, nodeFlags);
  if (s.url === '') throw new Error(`exited before listening: ${JSON.stringify(await s.exit)}\n${s.stderr()}`);
  return s;
}

/** The node processes a process started (Linux /proc). */
const children = (pid: number): number[] =>
  fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
const environ = (pid: number) => fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
const cmdline = (pid: number) => fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
/** Node 22.15 and later replace the launcher by the server (process.execve); older ones start it as a child. */
const replaces = typeof (process as { execve?: unknown }).execve === 'function';
/** The server process a launch runs. */
const serverOf = (s: Launched): number => {
  if (replaces) return s.proc.pid!;
  const started = children(s.proc.pid!);
  expect(started).toHaveLength(1);
  return started[0]!;
};
const gone = async (pid: number) => {
  // The test's own timeout bounds the wait.
  while (fs.existsSync(`/proc/${pid}`) && !/State:\s+Z/.test(fs.readFileSync(`/proc/${pid}/status`, 'utf8')))
    await new Promise((r) => setTimeout(r, 20));
  return true;
};

describe.runIf(onLinux)('bin/axle-server.js', () => {
  it('serves from one process started with the settings, and SIGTERM stops it with status 0', async () => {
    const s = await serve();
    expect((await fetch(`${s.url}/health`)).status).toBe(200);
    const server = serverOf(s);
    expect(environ(server)).toEqual(expect.arrayContaining(['MALLOC_ARENA_MAX=1', 'AXLE_LAUNCHED=1']));
    expect(cmdline(server)).toEqual(expect.arrayContaining(['--max-semi-space-size=2', '--heap-growing-percent=30']));
    // Launched once: the server starts no launcher of its own.
    expect(children(server)).toEqual([]);
    s.proc.kill('SIGTERM');
    expect(await s.exit).toEqual({ code: 0, signal: null });
    expect(await gone(server)).toBe(true);
  });

  it('takes the server with it when it is killed outright', async () => {
    const s = await serve();
    const server = serverOf(s);
    s.proc.kill('SIGKILL');
    expect(await gone(server)).toBe(true);
  });

  it("dies of the signal that killed the server, and exits with the server's status", async () => {
    const s = await serve();
    process.kill(serverOf(s), 'SIGKILL');
    expect(await s.exit).toEqual({ code: null, signal: 'SIGKILL' });

    const bad = await launch({ PORT: 'not-a-port' });
    expect(await bad.exit).toEqual({ code: 1, signal: null });
    expect(bad.stderr()).toMatch(/^axle-server: Invalid configuration: PORT/);
    const unclear = await launch({ AXLE_MEMORY_SETTINGS: 'maybe' });
    expect(await unclear.exit).toEqual({ code: 1, signal: null });
    expect(unclear.stderr()).toBe('axle-server: Invalid configuration: AXLE_MEMORY_SETTINGS: on or off, not "maybe"\n');
  });

  it('runs the server in its own process when the settings are in effect already, or switched off', async () => {
    for (const [env, flags] of [
      [{ MALLOC_ARENA_MAX: '1', NODE_OPTIONS: '--max-semi-space-size=2' }, ['--heap-growing-percent=30']],
      [{ AXLE_MEMORY_SETTINGS: 'off' }, []],
    ] as const) {
      const s = await serve(env, [...flags]);
      expect((await fetch(`${s.url}/health`)).status).toBe(200);
      expect(children(s.proc.pid!)).toEqual([]);
      s.proc.kill('SIGTERM');
      expect(await s.exit).toEqual({ code: 0, signal: null });
    }
  });
});
