import type pg from 'pg';
import type { Logger } from '../../logger.js';
import { migrate, POSTGRES_MIGRATIONS_DIR, readMigrations } from '../migrate.js';
import type { PostgresDatabase } from './db.js';

/** Session-level advisory lock key: instances starting together wait here and find the work done. */
const MIGRATION_LOCK = 'axle:migrate';
/** How long a start waits for another instance's migrations unless told otherwise (AXLE_MIGRATION_LOCK_WAIT_MS). */
export const DEFAULT_MIGRATION_LOCK_WAIT_MS = 300_000;
/** While it waits for the lock, a starting instance says so this often. */
const LOG_EVERY_MS = 10_000;

export interface MigrationLockWait {
  /** Longest a start waits for another instance's migrations before it fails; DEFAULT_MIGRATION_LOCK_WAIT_MS. */
  waitMs?: number;
  /** Told who holds the lock, when the wait begins and every 10 s of it. */
  logger?: Pick<Logger, 'warn'>;
}

/** The migration lock was not granted within the bound: one line naming who holds it and what to do. */
export class MigrationLockTimeout extends Error {}

/** The session holding the migration lock, as pg_stat_activity shows it; undefined once nobody does. */
async function lockHolder(conn: pg.PoolClient): Promise<string | undefined> {
  const { rows } = await conn.query<{ pid: number; app: string; addr: string | null; state: string; since: Date }>(
    `SELECT a.pid, a.application_name AS app, host(a.client_addr) AS addr, a.state, a.backend_start AS since
       FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
      WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
        AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
        AND l.objid::bigint = (hashtext($1)::bigint & 4294967295)`,
    [MIGRATION_LOCK],
  );
  const h = rows[0];
  if (!h) return undefined;
  return `PostgreSQL backend pid ${h.pid} (${h.app || 'no application name'}${h.addr ? ` from ${h.addr}` : ''}, ${h.state}, connected ${h.since.toISOString()})`;
}

/** Takes the migration lock on `conn`, waiting at most `waitMs` (PostgreSQL's lock_timeout ends each stretch of the wait). */
async function takeMigrationLock(
  conn: pg.PoolClient,
  { waitMs = DEFAULT_MIGRATION_LOCK_WAIT_MS, logger }: MigrationLockWait,
): Promise<void> {
  const started = Date.now();
  const granted = await conn.query<{ ok: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS ok', [
    MIGRATION_LOCK,
  ]);
  if (granted.rows[0]?.ok) return;
  let holder = await lockHolder(conn);
  for (;;) {
    const waited = Date.now() - started;
    const left = waitMs - waited;
    if (left <= 0)
      throw new MigrationLockTimeout(
        `waited ${(waited / 1000).toFixed(1)} s for the migration lock (${MIGRATION_LOCK}) held by ${holder ?? 'another session'}: ` +
          'another instance is migrating this database or hung while it did; once it is done or stopped (pg_terminate_backend), start again, or raise AXLE_MIGRATION_LOCK_WAIT_MS',
      );
    logger?.warn({ holder, waitedMs: waited, waitMs }, 'waiting for the migration lock held by another session');
    await conn.query(`SET lock_timeout = ${Math.max(1, Math.min(left, LOG_EVERY_MS))}`);
    try {
      await conn.query('SELECT pg_advisory_lock(hashtext($1))', [MIGRATION_LOCK]);
      await conn.query('SET lock_timeout = 0');
      return;
    } catch (err) {
      // 55P03: not granted within this stretch.
      if ((err as { code?: string }).code !== '55P03') throw err;
    }
    holder = (await lockHolder(conn)) ?? holder;
  }
}

/**
 * Applies the PostgreSQL migrations not yet recorded, one instance at a time: an instance that finds another
 * migrating waits for it (saying so), at most `lock.waitMs`. Returns the versions applied.
 */
export async function migratePostgres(
  db: PostgresDatabase,
  migrations = readMigrations(POSTGRES_MIGRATIONS_DIR),
  now = Date.now(),
  lock: MigrationLockWait = {},
): Promise<number[]> {
  const conn = await db.connect();
  try {
    await takeMigrationLock(conn, lock);
    return await migrate(db, migrations, now);
  } finally {
    await conn.query('SELECT pg_advisory_unlock(hashtext($1))', [MIGRATION_LOCK]).catch(() => undefined);
    conn.release();
  }
}
