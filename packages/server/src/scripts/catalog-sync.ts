// `axle-server catalog sync --from <registry URL>`: syncs the MCP servers of a registry speaking the v0.1
// API into AXLE_DATA_DIR's database (created and migrated when absent) and prints its report as JSON (the fields:
// docs/search.md, "Registry sync").
// A running server shows them after its next start. Exit 0: synced; 1: the registry failed (nothing
// changed); 2: bad arguments.
import fs from 'node:fs';
import { systemClock } from '../clock.js';
import { loadConfig } from '../config.js';
import { createLogger } from '../logger.js';
import { createRegistrySync } from '../services/registry-sync.js';
import { openStore } from '../store/open.js';

export const CATALOG_SYNC_USAGE = 'usage: axle-server catalog sync --from <registry URL>';

export async function catalogSync(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  out: (line: string) => void,
): Promise<number> {
  const at = argv.indexOf('--from');
  const from = at >= 0 ? argv[at + 1] : undefined;
  if (from === undefined || !URL.canParse(from) || !/^https?:$/.test(new URL(from).protocol)) {
    out(JSON.stringify({ ok: false, error: CATALOG_SYNC_USAGE }));
    return 2;
  }
  const config = loadConfig(env);
  fs.mkdirSync(config.dataDir, { recursive: true });
  const { db } = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, now: Date.now });
  try {
    const sync = createRegistrySync({
      db,
      clock: systemClock,
      logger: createLogger('warn'),
      onChange: async () => undefined,
    });
    try {
      out(JSON.stringify({ ok: true, ...(await sync.sync(from)) }));
      return 0;
    } catch (err) {
      out(JSON.stringify({ ok: false, source: from, error: (err as Error).message }));
      return 1;
    }
  } finally {
    await db.close();
  }
}
