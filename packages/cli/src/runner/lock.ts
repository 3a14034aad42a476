import { open, readFile, rm } from 'node:fs/promises';
import { alive } from '../lib/daemon-control.js';

/**
 * An exclusive lock file holding the owner's pid. A lock whose owner is gone is taken over, so a
 * runner that crashed does not block the next one. Returns a release function, or null when held.
 */
export async function acquireLock(path: string): Promise<(() => Promise<void>) | null> {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(path, 'wx', 0o600);
      await handle.writeFile(String(process.pid));
      await handle.close();
      return () => rm(path, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = Number((await readFile(path, 'utf8').catch(() => '')).trim());
      if (Number.isInteger(owner) && owner > 0 && alive(owner)) return null;
      await rm(path, { force: true });
    }
  }
  return null;
}
