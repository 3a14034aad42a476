import { copyFile, lstat, mkdir, readFile, readlink, stat } from 'node:fs/promises';
// The subpath, not the package's index, which brings the scrubber and the SDK to every command at start-up.
import { replaceFile } from '@axle/extractor/replace-file';
import { dirname, resolve } from 'node:path';

/** The file's text, or undefined when it does not exist. */
export async function readText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** The byte order mark some Windows tools write first: clients read past it, so setup does, and writes it back. */
export const BOM = '\uFEFF';

/** The text without a leading byte order mark. */
export const withoutBom = <T extends string | undefined>(text: T): T =>
  (text?.startsWith(BOM) ? text.slice(BOM.length) : text) as T;

export async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * The file a path names once symbolic links are followed, also when the last link points at nothing yet: a config
 * kept in a dotfiles folder and linked into place is edited where it lives, and the link stays a link.
 */
export async function resolveLinks(path: string): Promise<string> {
  let current = path;
  for (let hops = 0; hops < 40; hops++) {
    try {
      if (!(await lstat(current)).isSymbolicLink()) return current;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return current;
      throw err;
    }
    current = resolve(dirname(current), await readlink(current));
  }
  throw new Error(`${path}: too many levels of symbolic links`);
}

/**
 * Replaces a file atomically: the new text goes to a temporary file in the same folder, is flushed,
 * and is renamed over the old one, so a crash leaves the old file or the new one, never half of either.
 * With `backup`, the file as it was before Axle first changed it is kept next to it as
 * `<name>.axle-backup` (an existing backup is not replaced). The mode of an existing file is kept
 * unless `forceMode` says otherwise; `mode` is that of a new file. A symbolic link is written through (the file it
 * points to is replaced; the backup sits next to the link, under the name the caller knows).
 */
export async function writeAtomic(
  path: string,
  text: string,
  opts: { backup?: boolean; mode?: number; forceMode?: number } = {},
): Promise<void> {
  const target = await resolveLinks(path);
  await mkdir(dirname(target), { recursive: true });
  let mode = opts.forceMode ?? opts.mode ?? 0o644;
  try {
    const existing = (await stat(target)).mode & 0o777;
    if (opts.forceMode === undefined) mode = existing;
    if (opts.backup && !(await exists(backupPath(path)))) await copyFile(target, backupPath(path));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  await replaceFile(target, text, mode);
}

export const backupPath = (path: string) => `${path}.axle-backup`;
