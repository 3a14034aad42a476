// `axle-server catalog sync --from <registry URL>`: syncs the MCP servers of a registry speaking the v0.1
// API into the configured database (created and migrated when absent) and prints its report as JSON (the fields:
// docs/search.md, "Registry sync"). Servers running on the same PostgreSQL database reload the catalog at once
// (NOTIFY); one on the SQLite file shows them after its next start. Exit 0: synced; 1: the registry failed (nothing
// changed), another sync holds the lease, or applying stopped part way (each server as it was or as read; the
// next sync finishes the job); 2: bad arguments, a configuration that does not load or a database that cannot be opened. The catalog
// screen's semantic layer loads the sentence model in a worker first (a few hundred milliseconds), unless
// AXLE_SEMANTIC_SEARCH=off; when it cannot load, the regex screen decides alone and the report's `regexOnly` counts
// the versions so screened.
import { registryUrlProblem } from '../catalog/registry-url.js';
import { systemClock } from '../clock.js';
import { createLogger, type Logger } from '../logger.js';
import { EmbedderClient } from '../search/embedder.js';
import { type CatalogScreenModel, createCatalogScreen } from '../services/catalog-screen.js';
import { createRegistrySync } from '../services/registry-sync.js';
import { openCommandStore } from './data-dir-database.js';
import { CATALOG_SYNC_USAGE } from './usage.js';

/** The sentence model in a worker of this process, or undefined (and a warning) when it cannot load. */
async function loadModel(logger: Logger): Promise<{ model: CatalogScreenModel; close(): Promise<void> } | undefined> {
  const client = new EmbedderClient();
  try {
    await client.init();
  } catch (err) {
    logger.warn({ err: (err as Error).message }, 'catalog sync: sentence model failed to load; regex screen only');
    await client.close();
    return undefined;
  }
  const model = {
    state: () => (client.alive() ? 'ready' : 'unavailable'),
    embed: (texts: string[]) => client.embed(texts),
  };
  return { model, close: () => client.close() };
}

export async function catalogSync(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  out: (line: string) => void,
): Promise<number> {
  const at = argv.indexOf('--from');
  const from = at >= 0 ? argv[at + 1] : undefined;
  const problem = from === undefined ? undefined : registryUrlProblem(from);
  if (from === undefined || problem !== undefined) {
    out(JSON.stringify({ ok: false, error: problem === undefined ? CATALOG_SYNC_USAGE : `--from ${problem}` }));
    return 2;
  }
  const opened = await openCommandStore(env, out);
  if (!opened) return 2;
  const { config, store } = opened;
  const { db, changes } = store;
  const logger = createLogger('warn');
  const loaded = config.semanticSearch ? await loadModel(logger) : undefined;
  try {
    const sync = createRegistrySync({
      db,
      clock: systemClock,
      logger,
      onChange: () => changes.publish('catalog'),
      screen: createCatalogScreen({ model: loaded?.model, logger }),
    });
    try {
      out(JSON.stringify({ ok: true, ...(await sync.sync(from)) }));
      return 0;
    } catch (err) {
      out(JSON.stringify({ ok: false, source: from, error: (err as Error).message }));
      return 1;
    }
  } finally {
    await loaded?.close();
    await changes.close();
    await db.close();
  }
}
