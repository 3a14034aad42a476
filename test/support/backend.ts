// Which database a test's server or store runs on: the vitest project `postgres` runs the store and
// service tests again on PostgreSQL (vitest.config.ts); every other run uses SQLite.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inject } from 'vitest';
import { openStore, type Store } from '../../packages/server/src/store/open.js';
import { freshPostgresUrl } from './postgres.js';
import type { Prepared } from './prepared.js';

export const BACKEND: 'sqlite' | 'postgres' = process.env.AXLE_TEST_BACKEND === 'postgres' ? 'postgres' : 'sqlite';

/**
 * Environment selecting a fresh database on this run's backend starting as `kind` (test/support/prepared.ts);
 * nothing for SQLite, whose database is the data dir's file (see prepareDataDir).
 */
export async function backendEnv(kind: Prepared): Promise<Record<string, string>> {
  if (BACKEND === 'sqlite') return {};
  const pg = inject('postgres');
  if (!pg) throw new Error('the postgres test project runs without PostgreSQL');
  return { AXLE_DATABASE_URL: await freshPostgresUrl(pg, kind) };
}

/**
 * Puts a copy of the prepared SQLite database of `kind` into the new data dir `dataDir`, so whoever opens it
 * finds the work done. Without prepared ones (a run without the globalSetup), nothing: the opener does it.
 */
export function prepareDataDir(dataDir: string, kind: Prepared): void {
  const file = kind === 'empty' ? undefined : inject('sqlitePrepared')?.[kind];
  if (file) fs.copyFileSync(file, path.join(dataDir, 'axle.db'), fs.constants.COPYFILE_EXCL);
}

/** A fresh, migrated database on this run's backend with its repositories (SQLite: a file in a temp dir). */
export async function openTestStore(
  now: () => number = Date.now,
): Promise<Store & { env: Record<string, string>; another(): Promise<Store>; close(): Promise<void> }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'axle-store-'));
  if (BACKEND === 'sqlite') prepareDataDir(dir, 'migrated');
  const env = await backendEnv('migrated');
  const open = () => openStore({ databaseUrl: env.AXLE_DATABASE_URL, databasePool: 8, dataDir: dir, now });
  const store = await open();
  return Object.assign(store, {
    /** The configuration (loadConfig's environment) naming this database. */
    env: { AXLE_DATA_DIR: dir, ...env },
    /** The same database opened again, as a second server instance would (the caller closes it). */
    another: open,
    async close() {
      await store.db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  });
}
