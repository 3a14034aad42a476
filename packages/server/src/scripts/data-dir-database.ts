// Opens the configured database (AXLE_DATABASE_URL, else the SQLite file in AXLE_DATA_DIR) for a
// command-line check and closes it afterwards. Without a SQLite file it prints {ok: false, error} and
// answers exit code 2; otherwise `check`'s exit code.
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../config.js';
import { Database } from '../store/db.js';
import { PostgresDatabase } from '../store/postgres/db.js';
import type { Transactor } from '../store/queryable.js';

/** A database URL as printed: without its password. */
export function redactUrl(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = '***';
  return u.toString();
}

export async function withDataDirDatabase(
  env: NodeJS.ProcessEnv,
  out: (line: string) => void,
  check: (db: Transactor, name: string) => Promise<number>,
): Promise<number> {
  const config = loadConfig(env);
  let db: Transactor;
  let name: string;
  if (config.databaseUrl) {
    db = await PostgresDatabase.open(config.databaseUrl, { poolSize: 2 });
    name = redactUrl(config.databaseUrl);
  } else {
    name = path.join(config.dataDir, 'axle.db');
    if (!fs.existsSync(name)) {
      out(JSON.stringify({ ok: false, error: `no database at ${name}` }));
      return 2;
    }
    db = await Database.open(name);
  }
  try {
    return await check(db, name);
  } finally {
    await db.close();
  }
}
