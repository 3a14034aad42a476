import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import sqlite3 from 'sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { listeningUrl, serverProcessEnv } from '../../../test/support/process.js';
import { loadCatalog } from '../src/catalog/load.js';
import { skillPassages } from '../src/search/passages.js';
import { SMALL_CATALOG } from './search-helpers.js';

// The built server, as `npm start` runs it (npm test builds first via pretest).
const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));

let child: ChildProcess | undefined;
let dataDir: string | undefined;
afterEach(() => {
  if (child?.exitCode === null) child.kill('SIGKILL');
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

/** An import hook that refuses viem, naming the module that asked for it. */
const NO_VIEM = `export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (resolved.url.includes('/node_modules/viem/')) throw new Error('viem loaded by ' + context.parentURL);
  return resolved;
}`;
const dataUrl = (code: string) => `data:text/javascript,${encodeURIComponent(code)}`;

/** Starts the built server with `env` and waits for it to stop on its own: its exit code and what it printed on stderr. */
async function startUntilExit(env: NodeJS.ProcessEnv): Promise<{ code: number | null; stderr: string }> {
  const proc = spawn(process.execPath, [MAIN], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  child = proc;
  let stderr = '';
  proc.stderr!.on('data', (chunk) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve) => proc.once('exit', (c) => resolve(c)));
  return { code, stderr };
}

describe('built server process', () => {
  it('loads no viem with its modules: the x402 extensions that bring it load at first use', () => {
    const register = `import { register } from 'node:module'; register(${JSON.stringify(dataUrl(NO_VIEM))});`;
    // The hook is shown to work on an extension that does bring viem.
    const script = `await import(${JSON.stringify(pathToFileURL(path.join(path.dirname(MAIN), 'server.js')).href)});
      console.log('server loaded');
      await import('@x402/extensions/sign-in-with-x').catch((err) => console.log(err.message));`;
    const run = spawnSync(process.execPath, ['--import', dataUrl(register), '--input-type=module', '-e', script], {
      cwd: path.dirname(MAIN),
      encoding: 'utf8',
    });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^server loaded\nviem loaded by .*@x402\/extensions\//);
  });

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
    const { code, stderr } = await startUntilExit(
      serverProcessEnv(dataDir, { AXLE_CATALOG: catalog, LOG_LEVEL: 'info' }),
    );
    expect(code).toBe(1);
    expect(stderr).toContain(`AXLE_CATALOG ${catalog}: entry 0 (id "ok-skill"): description`);
    expect(stderr).not.toMatch(/\n\s+at /); // a message, not a stack trace
  }, 60_000);

  // Found by starting a server on a data folder whose SQLite file another process was writing (a second server on
  // the same folder, mid-migration): 'axle-server: The database cannot take this request now; nothing was written',
  // a request's message, naming neither the file nor the other process.
  it('stops with a message naming the data folder when another process holds its SQLite database', async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'axle-proc-'));
    const holder = new sqlite3.Database(path.join(dataDir, 'axle.db'));
    await new Promise<void>((resolve, reject) =>
      holder.exec('BEGIN IMMEDIATE; CREATE TABLE held (a INTEGER)', (err) => (err ? reject(err) : resolve())),
    );
    try {
      const { code, stderr } = await startUntilExit(serverProcessEnv(dataDir));
      expect(code).toBe(1);
      expect(stderr).toBe(
        `axle-server: another process holds the SQLite database in ${dataDir} (a second server on this data folder?): stop it, or start again once it is done\n`,
      );
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  }, 60_000);

  // Found by `npm start` on a data folder whose axle.db was overwritten: 'axle-server: SQLITE_NOTADB: file is not a
  // database', naming no file and no way on.
  it('stops with a message naming the data folder when its SQLite file is not a database', async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'axle-proc-'));
    fs.writeFileSync(path.join(dataDir, 'axle.db'), 'not a database '.repeat(512));
    const { code, stderr } = await startUntilExit(serverProcessEnv(dataDir));
    expect(code).toBe(1);
    expect(stderr).toBe(
      `axle-server: SQLITE_NOTADB: file is not a database (the SQLite database in ${dataDir}: restore it from a backup, or move it away to start with an empty one)\n`,
    );
  });
});

/**
 * Writes an operator catalog of MCP servers whose tools' passages no bundled file holds (2 servers of 100 tools, 48
 * passages each: 3 batches, killed after the first); returns how many distinct passages it has.
 */
function writeCatalog(file: string): number {
  const server = loadCatalog(SMALL_CATALOG).find((s) => s.type === 'mcp_server' && s.tools)!;
  const servers = Array.from({ length: 2 }, (_, s) => ({
    ...server,
    id: `ledger-${s}`,
    name: `Ledger ${s}`,
    description: `Keeps the books of ledger ${s} for auditors.`,
    tools: Array.from({ length: 100 }, (_, t) => ({
      name: `report_${s}_${t}`,
      description: `Returns report ${t} of ledger ${s}: the quarterly figures auditors sign off, line ${s * 100 + t}`,
    })),
  }));
  fs.writeFileSync(file, JSON.stringify(servers));
  return new Set(servers.flatMap((s) => skillPassages(s))).size;
}

/** The passage vectors the server's database holds (0 while its tables do not exist yet). */
async function storedPassages(file: string): Promise<number> {
  if (!fs.existsSync(file)) return 0;
  const db = await new Promise<sqlite3.Database>((resolve, reject) => {
    const d = new sqlite3.Database(file, sqlite3.OPEN_READONLY, (err) => (err ? reject(err) : resolve(d)));
  });
  try {
    return await new Promise<number>((resolve) =>
      db.get<{ n: number }>('SELECT COUNT(*) AS n FROM passage_embeddings', (err, row) => resolve(err ? 0 : row.n)),
    );
  } finally {
    await new Promise((resolve) => db.close(resolve));
  }
}

/** Starts the built server on `dir` with `catalog`, semantic search on and one worker; its stdout lines go to `lines`. */
function start(dir: string, catalog: string, lines: string[]): ChildProcess {
  const proc = spawn(process.execPath, [MAIN], {
    env: serverProcessEnv(dir, {
      AXLE_CATALOG: catalog,
      AXLE_SEMANTIC_SEARCH: 'on',
      AXLE_SEARCH_WORKERS: '1',
      LOG_LEVEL: 'info',
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child = proc;
  let rest = '';
  proc.stdout!.on('data', (chunk) => {
    const text = rest + chunk;
    const split = text.split('\n');
    rest = split.pop()!;
    lines.push(...split);
  });
  return proc;
}

/** The first logged record with message `msg`, waiting for it (or for the process to exit without it). */
async function logged(proc: ChildProcess, lines: string[], msg: string): Promise<Record<string, unknown>> {
  for (;;) {
    for (const line of lines) {
      if (!line.startsWith('{')) continue;
      const record = JSON.parse(line) as Record<string, unknown>;
      if (record.msg === msg) return record;
    }
    if (proc.exitCode !== null) throw new Error(`exited before logging "${msg}":\n${lines.join('\n')}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('passage vectors computed by the built server', () => {
  it('survive kill -9 mid-run: a restart computes only the passages no saved batch holds', async () => {
    expect(fs.existsSync(MAIN), `${MAIN} missing: run npx tsc -b first`).toBe(true);
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'axle-passage-kill-'));
    const catalog = path.join(dataDir, 'catalog.json');
    const passages = writeCatalog(catalog);
    const db = path.join(dataDir, 'axle.db');

    const first = start(dataDir, catalog, []);
    await listeningUrl(first);
    // Killed once the first batch is saved, with most of the run still to go.
    while ((await storedPassages(db)) === 0) {
      if (first.exitCode !== null) throw new Error('the server exited before saving a batch');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    first.kill('SIGKILL');
    await new Promise((resolve) => first.once('exit', resolve));
    const saved = await storedPassages(db);
    expect(saved).toBeGreaterThan(0);

    const lines: string[] = [];
    const second = start(dataDir, catalog, lines);
    await listeningUrl(second);
    const done = await logged(second, lines, 'passage vectors computed');
    // Every passage stored once: those saved before the kill are not computed again.
    expect(await storedPassages(db)).toBe(passages);
    expect(saved).toBeLessThan(passages);
    expect(done).toMatchObject({ computed: passages - saved, left: 0 });
  }, 180_000);
});
