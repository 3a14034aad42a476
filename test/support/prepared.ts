// Prepared databases: a test that wants a migrated database (or one holding the bundled catalog too, as a
// server's first start leaves it) gets a copy of one built once per run, instead of running every migration
// and the catalog import again. Built fresh by each run's globalSetup, so they follow any change to the
// migrations or the catalog.
import { createLogger } from '../../packages/server/src/logger.js';
import { createSkillsService } from '../../packages/server/src/services/skills.js';
import { openStore } from '../../packages/server/src/store/open.js';

/** What a fresh test database starts as: nothing, the migrated schema, or that plus the bundled catalog. */
export type Prepared = 'empty' | 'migrated' | 'catalog';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The SQLite file of each prepared kind (test/support/sqlite-setup.ts); unset: none prepared. */
    sqlitePrepared: Record<Exclude<Prepared, 'empty'>, string> | null;
  }
}

/**
 * Brings the database at `databaseUrl` (or the SQLite file in `dataDir`) to `kind`: migrations, and for
 * 'catalog' the import a server's first start does (the skills service itself, search off).
 */
export async function prepareDatabase(kind: Prepared, dataDir: string, databaseUrl?: string): Promise<void> {
  if (kind === 'empty') return;
  const store = await openStore({ databaseUrl, databasePool: 2, dataDir, now: Date.now });
  try {
    if (kind === 'catalog') {
      const skills = await createSkillsService({
        repo: store.skills,
        db: store.db,
        logger: createLogger('silent'),
        semanticSearch: false,
        knowledgeHints: { hintFor: async () => null },
      });
      await skills.close();
    }
  } finally {
    await store.db.close();
  }
}
