// `axle-server catalog held` and `axle-server catalog release <name>`: an operator's review of the synced servers
// the catalog screen holds (docs/search.md, "Registry sync"). `held` prints one JSON line per held latest version
// (source, name, version, the rules that hold it); `release` makes the held latest version of a server searchable
// until a sync brings other text for it, and prints how many versions it released. Servers running on the same
// PostgreSQL database show a release at once (NOTIFY); one on the SQLite file after its next start. Exit 0: done;
// 1: `release` found no held version of that name; 2: bad arguments, a configuration that does not load or a
// database that cannot be opened.
import { systemClock } from '../clock.js';
import { createLogger } from '../logger.js';
import { createRegistrySync } from '../services/registry-sync.js';
import { openCommandStore } from './data-dir-database.js';
import { CATALOG_HELD_USAGE } from './usage.js';

export async function catalogHeld(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  out: (line: string) => void,
): Promise<number> {
  const [command, name, ...rest] = argv;
  const valid = (command === 'held' && name === undefined) || (command === 'release' && !!name && rest.length === 0);
  if (!valid) {
    out(JSON.stringify({ ok: false, error: CATALOG_HELD_USAGE }));
    return 2;
  }
  const opened = await openCommandStore(env, out);
  if (!opened) return 2;
  const { config, store } = opened;
  const { db, changes } = store;
  try {
    const registry = createRegistrySync({
      db,
      clock: systemClock,
      logger: createLogger('warn'),
      onChange: () => changes.publish('catalog'),
    });
    if (command === 'held') {
      for (const v of await registry.held()) out(JSON.stringify(v));
      return 0;
    }
    const released = await registry.release(name!);
    if (released === 0) {
      out(JSON.stringify({ ok: false, name, error: `no held latest version of ${name}` }));
      return 1;
    }
    out(JSON.stringify({ ok: true, name, released }));
    return 0;
  } finally {
    await changes.close();
    await db.close();
  }
}
