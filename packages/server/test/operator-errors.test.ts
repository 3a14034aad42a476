// The operator's commands (axle-server migrate-to-postgres, catalog held/sync, npm run audit:verify and
// ledger:check) run as the operator runs them, against a database that cannot be opened or a configuration that
// is wrong: each answers one JSON line saying why, exit code 2, and no stack trace.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../src/store/db.js';

const dist = (p: string) => fileURLToPath(new URL(`../${p}`, import.meta.url));
const BIN = dist('bin/axle-server.js');
const COMMANDS: Record<string, string[]> = {
  'migrate-to-postgres': [BIN, 'migrate-to-postgres'],
  'catalog held': [BIN, 'catalog', 'held'],
  'catalog release': [BIN, 'catalog', 'release', 'some-server'],
  'catalog sync': [BIN, 'catalog', 'sync', '--from', 'http://127.0.0.1:1/'],
  'audit:verify': [dist('dist/scripts/audit-verify.js')],
  'ledger:check': [dist('dist/scripts/ledger-check.js')],
};

function run(
  args: string[],
  env: Record<string, string>,
  timeout = 0,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      args,
      { env: { PATH: process.env.PATH ?? '', AXLE_SEMANTIC_SEARCH: 'off', ...env }, timeout },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? -1) : 0, stdout, stderr }),
    );
  });
}

describe('operator commands on a database that cannot be opened', () => {
  let dataDir: string;
  beforeAll(async () => {
    expect(fs.existsSync(BIN) && fs.existsSync(dist('dist/main.js')), 'run npx tsc -b first').toBe(true);
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'axle-operator-'));
    // A SQLite file to copy from, so migrate-to-postgres gets as far as opening PostgreSQL.
    await (await Database.open(path.join(dataDir, 'axle.db'))).close();
  });
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  for (const [name, args] of Object.entries(COMMANDS)) {
    it(`${name}: PostgreSQL refusing connections is named, exit 2, no stack trace`, async () => {
      const r = await run(args, { AXLE_DATA_DIR: dataDir, AXLE_DATABASE_URL: 'postgres://postgres@127.0.0.1:1/axle' });
      expect(r.stderr).not.toMatch(/\n\s+at /);
      expect(r.code, r.stderr).toBe(2);
      const line = JSON.parse(r.stdout.trim().split('\n').pop()!) as { ok: boolean; error: string };
      expect(line.ok).toBe(false);
      expect(line.error).toMatch(/unavailable.*ECONNREFUSED/);
    });

    it(`${name}: an invalid AXLE_DATABASE_URL is named, exit 2, no stack trace`, async () => {
      const r = await run(args, { AXLE_DATA_DIR: dataDir, AXLE_DATABASE_URL: 'not-a-url' });
      expect(r.stderr).not.toMatch(/\n\s+at /);
      expect(r.code, r.stderr).toBe(2);
      const line = JSON.parse(r.stdout.trim().split('\n').pop()!) as { ok: boolean; error: string };
      expect(line).toMatchObject({ ok: false });
      expect(line.error).toMatch(/Invalid configuration: AXLE_DATABASE_URL/);
    });
  }
});

describe('axle-server with a command it does not know', () => {
  // A mistyped command must not start a server: on a new PostgreSQL database that server would migrate it and
  // write its first rows, and migrate-to-postgres would then refuse it as not new.
  for (const args of [['migrate-to-postgress'], ['catalog'], ['catalog', 'syncs', '--from', 'http://x/'], ['--help']]) {
    it(`axle-server ${args.join(' ')}: names the commands, exit 2, no server started`, async () => {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'axle-operator-'));
      try {
        // Killed after 20 s only if it started a server (the fault); a refusal answers at once.
        const r = await run([BIN, ...args], { AXLE_DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1' }, 20_000);
        expect(r.stdout).not.toMatch(/listening/);
        expect(r.code, r.stdout + r.stderr).toBe(2);
        const line = JSON.parse(r.stdout.trim()) as { ok: boolean; error: string };
        expect(line.ok).toBe(false);
        expect(line.error).toMatch(/usage: axle-server .*migrate-to-postgres.*catalog sync/s);
        expect(fs.existsSync(path.join(dataDir, 'axle.db'))).toBe(false);
      } finally {
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    });
  }
});
