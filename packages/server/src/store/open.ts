import path from 'node:path';
import { inProcessChanges, type Changes } from './changes.js';
import { Database } from './db.js';
import { createLearningsSearch, type LearningsSearch } from './learnings-search.js';
import { migrate } from './migrate.js';
import { postgresChanges } from './postgres/changes.js';
import { PostgresDatabase } from './postgres/db.js';
import { createPostgresLearningsSearch } from './postgres/learnings-search.js';
import { type MigrationLockWait, migratePostgres } from './postgres/migrate.js';
import { createPostgresSkillsStore } from './postgres/skills.js';
import type { Transactor } from './queryable.js';
import { createSkillsStore, type SkillsStore } from './skills.js';

export type Dialect = 'sqlite' | 'postgres';

/** One database and the repositories whose SQL is the dialect's own; compose.ts hands them to the services. */
export interface Store {
  dialect: Dialect;
  db: Transactor;
  skills: SkillsStore;
  learningsSearch: LearningsSearch;
  /** Tells the other instances on the database to reload what they keep in memory (the caller closes it). */
  changes: Changes;
}

export interface StoreOptions {
  /** postgres://…; unset: the SQLite file <dataDir>/axle.db. */
  databaseUrl?: string;
  databasePool?: number;
  /** PostgreSQL: how long a statement of the running server may take (migrations are not bounded). */
  databaseStatementTimeoutMs?: number;
  dataDir: string;
  /** Clock of migration records and of the search statistics kept in memory. */
  now: () => number;
  /** PostgreSQL: how long a start waits for another instance's migrations, and where it says so. */
  migrationLock?: MigrationLockWait;
}

/** Opens the database of `opts`, brings its schema up to date and builds its repositories. */
export async function openStore(opts: StoreOptions): Promise<Store> {
  if (opts.databaseUrl) {
    // Migrations run on connections of their own, without the statement timeout: building an index on a
    // large table, or waiting for another instance's migration, may take longer than a request may.
    const migrating = await PostgresDatabase.open(opts.databaseUrl, { poolSize: 2 });
    try {
      await migratePostgres(migrating, undefined, opts.now(), opts.migrationLock);
    } finally {
      await migrating.close();
    }
    const db = await PostgresDatabase.open(opts.databaseUrl, {
      poolSize: opts.databasePool,
      statementTimeoutMs: opts.databaseStatementTimeoutMs,
    });
    return {
      dialect: 'postgres',
      db,
      skills: createPostgresSkillsStore(db, opts.now),
      learningsSearch: createPostgresLearningsSearch(db, opts.now),
      changes: postgresChanges(db),
    };
  }
  const db = await Database.open(path.join(opts.dataDir, 'axle.db'));
  await migrate(db, undefined, opts.now());
  return {
    dialect: 'sqlite',
    db,
    skills: createSkillsStore(db),
    learningsSearch: createLearningsSearch(db, opts.now),
    changes: inProcessChanges(),
  };
}
