// Opens the configured database (AXLE_DATABASE_URL, else the SQLite file in AXLE_DATA_DIR) for a
// command-line check and closes it afterwards. Without a SQLite file, with a configuration that does not load or a
// database that cannot be opened, it prints {ok: false, error} and answers exit code 2; otherwise `check`'s exit
// code.
import fs from 'node:fs';
import path from 'node:path';
import { type Config, loadConfig } from '../config.js';
import { Database } from '../store/db.js';
import { PostgresDatabase } from '../store/postgres/db.js';
import { openStore, type Store } from '../store/open.js';
import type { Transactor } from '../store/queryable.js';

/** A database URL as printed: without its password. */
export function redactUrl(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = '***';
  return u.toString();
}

/**
 * An error as an operator reads it: its message and, when it wraps the driver's (a database unavailable), what the
 * driver said (connection refused, no such database, authentication failed).
 */
export function failureText(err: unknown): string {
  const e = err as Error & { cause?: { message?: string; code?: string; errors?: Array<{ message?: string }> } };
  const cause = e.cause && (e.cause.message || e.cause.errors?.[0]?.message || e.cause.code);
  return cause ? `${e.message}: ${cause}` : (e.message ?? String(err));
}

/**
 * The configured store (created and migrated when absent) for a command that writes it; undefined, with
 * {ok: false, error} printed, when the configuration does not load or the database cannot be opened (the
 * operator's to fix: the caller answers exit 2).
 */
export async function openCommandStore(
  env: NodeJS.ProcessEnv,
  out: (line: string) => void,
): Promise<{ config: Config; store: Store } | undefined> {
  try {
    const config = loadConfig(env);
    fs.mkdirSync(config.dataDir, { recursive: true });
    const store = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, now: Date.now });
    return { config, store };
  } catch (err) {
    out(JSON.stringify({ ok: false, error: failureText(err) }));
    return undefined;
  }
}

/** Runs an operator command: whatever it throws is printed as {ok: false, error} (exit 1), not as a stack trace. */
export async function runCommand(out: (line: string) => void, command: () => Promise<number>): Promise<number> {
  try {
    return await command();
  } catch (err) {
    out(JSON.stringify({ ok: false, error: failureText(err) }));
    return 1;
  }
}

export async function withDataDirDatabase(
  env: NodeJS.ProcessEnv,
  out: (line: string) => void,
  check: (db: Transactor, name: string, config: Config) => Promise<number>,
): Promise<number> {
  let config: Config;
  let db: Transactor;
  let name: string;
  try {
    config = loadConfig(env);
    if (config.databaseUrl) {
      name = redactUrl(config.databaseUrl);
      db = await PostgresDatabase.open(config.databaseUrl, { poolSize: 2 });
    } else {
      name = path.join(config.dataDir, 'axle.db');
      if (!fs.existsSync(name)) {
        out(JSON.stringify({ ok: false, error: `no database at ${name}` }));
        return 2;
      }
      db = await Database.open(name);
    }
  } catch (err) {
    out(JSON.stringify({ ok: false, error: failureText(err) }));
    return 2;
  }
  try {
    return await check(db, name, config);
  } finally {
    await db.close();
  }
}
