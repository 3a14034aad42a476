import { migrate, POSTGRES_MIGRATIONS_DIR, readMigrations } from '../migrate.js';
import type { PostgresDatabase } from './db.js';

/** Session-level advisory lock key: instances starting together wait here and find the work done. */
const MIGRATION_LOCK = 'axle:migrate';

/** Applies the PostgreSQL migrations not yet recorded, one instance at a time. Returns the versions applied. */
export async function migratePostgres(
  db: PostgresDatabase,
  migrations = readMigrations(POSTGRES_MIGRATIONS_DIR),
  now = Date.now(),
): Promise<number[]> {
  const lock = await db.connect();
  try {
    await lock.query('SELECT pg_advisory_lock(hashtext($1))', [MIGRATION_LOCK]);
    return await migrate(db, migrations, now);
  } finally {
    await lock.query('SELECT pg_advisory_unlock(hashtext($1))', [MIGRATION_LOCK]).catch(() => undefined);
    lock.release();
  }
}
