import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
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

/**
 * Writes an operator catalog of MCP servers whose tools' passages no bundled file holds (8 servers of 100 tools);
 * returns how many distinct passages it has.
 */
function writeCatalog(file: string): number {
  const server = loadCatalog(SMALL_CATALOG).find((s) => s.type === 'mcp_server' && s.tools)!;
  const servers = Array.from({ length: 8 }, (_, s) => ({
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
