import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Transactor } from './queryable.js';

// src/store and dist/store sit at the same depth, so these find the .sql files from either.
const MIGRATIONS_DIR = fileURLToPath(new URL('../../src/store/migrations/', import.meta.url));
export const POSTGRES_MIGRATIONS_DIR = fileURLToPath(new URL('../../src/store/postgres/migrations/', import.meta.url));

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export function readMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return fs
    .readdirSync(dir)
    .filter((f) => /^\d{3}_[a-z0-9_]+\.sql$/.test(f))
    .sort()
    .map((f) => ({
      version: Number(f.slice(0, 3)),
      name: f.slice(4, -4),
      sql: fs.readFileSync(`${dir}/${f}`, 'utf8'),
    }));
}

/** Applies every migration not yet recorded, each in its own transaction. Returns the versions applied. */
export async function migrate(db: Transactor, migrations = readMigrations(), now = Date.now()): Promise<number[]> {
  await db.exec(
    'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)',
  );
  const applied = new Set(
    (await db.all<{ version: number }>('SELECT version FROM schema_migrations')).map((r) => r.version),
  );
  const done: number[] = [];
  for (const m of migrations) {
    if (applied.has(m.version)) continue;
    await db.tx(async (q) => {
      await q.exec(m.sql);
      await q.run('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)', [
        m.version,
        m.name,
        now,
      ]);
    });
    done.push(m.version);
  }
  return done;
}
