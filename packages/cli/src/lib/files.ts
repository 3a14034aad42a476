import { randomBytes } from 'node:crypto';
import { copyFile, mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** The file's text, or undefined when it does not exist. */
export async function readText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

export async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Replaces a file atomically: the new text goes to a temporary file in the same folder, is flushed,
 * and is renamed over the old one, so a crash leaves the old file or the new one, never half of either.
 * With `backup`, the file as it was before Axle first changed it is kept next to it as
 * `<name>.axle-backup` (an existing backup is not replaced). The mode of an existing file is kept
 * unless `forceMode` says otherwise; `mode` is that of a new file.
 */
export async function writeAtomic(
  path: string,
  text: string,
  opts: { backup?: boolean; mode?: number; forceMode?: number } = {},
): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  let mode = opts.forceMode ?? opts.mode ?? 0o644;
  try {
    const existing = (await stat(path)).mode & 0o777;
    if (opts.forceMode === undefined) mode = existing;
    if (opts.backup && !(await exists(backupPath(path)))) await copyFile(path, backupPath(path));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(4).toString('hex')}.tmp`);
  const handle = await open(tmp, 'w', mode);
  try {
    await handle.chmod(mode); // open's mode is filtered by the umask
    await handle.writeFile(text, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}

export const backupPath = (path: string) => `${path}.axle-backup`;
