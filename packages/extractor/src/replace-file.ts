import { randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Replaces `path` with `text`: written to a temporary file in the same folder, flushed to the disk, then renamed over
 * it, so a crash or a power loss leaves the old file or the whole new one. On a full disk or a size limit the file
 * stays as it was and no part of the new one is left beside it.
 */
export async function replaceFile(path: string, text: string, mode: number): Promise<void> {
  const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    const handle = await open(tmp, 'w', mode);
    try {
      await handle.chmod(mode); // open's mode is filtered by the umask
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}
