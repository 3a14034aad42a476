import { randomBytes } from 'node:crypto';
import { link, readFile, rm, writeFile } from 'node:fs/promises';
import { alive } from '../lib/daemon-control.js';

/** The pid a lock file names, or 0 when it names none. */
async function ownerOf(path: string): Promise<number> {
  const owner = Number((await readFile(path, 'utf8').catch(() => '')).trim());
  return Number.isInteger(owner) && owner > 0 ? owner : 0;
}

/**
 * Creates `path` holding this process's pid, or fails with EEXIST. The file appears with its content already in
 * it (a hard link to a finished temporary file), so no one ever reads a lock without its owner.
 */
async function create(path: string): Promise<boolean> {
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(tmp, String(process.pid), { mode: 0o600 });
  try {
    await link(tmp, path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    await rm(tmp, { force: true });
  }
}

/**
 * An exclusive lock file holding the owner's pid. A lock whose owner is gone is taken over, so a
 * runner that crashed does not block the next one. Returns a release function, or null when held.
 *
 * Taking over is done under a second lock (`<path>.takeover`): of several processes that find the same dead
 * owner, only the one holding it removes the file, after checking it still names that owner, so none removes a
 * lock another has just taken.
 */
export async function acquireLock(path: string): Promise<(() => Promise<void>) | null> {
  const release = async () => {
    if ((await ownerOf(path)) === process.pid) await rm(path, { force: true });
  };
  for (let attempt = 0; attempt < 3; attempt++) {
    if (await create(path)) return release;
    const owner = await ownerOf(path);
    if (owner && alive(owner)) return null;
    const takeover = `${path}.takeover`;
    if (!(await create(takeover))) {
      const other = await ownerOf(takeover);
      if (other && alive(other)) return null; // another process is taking the lock over right now
      await rm(takeover, { force: true }); // left by one that died mid-takeover
      continue;
    }
    try {
      const now = await ownerOf(path);
      if (now === owner || (now && !alive(now))) await rm(path, { force: true });
    } finally {
      await rm(takeover, { force: true });
    }
  }
  return null;
}
