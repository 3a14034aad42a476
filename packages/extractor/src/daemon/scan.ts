import type { Dirent } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';

export interface ScannedFile {
  path: string;
  size: number;
  mtimeMs: number;
}

/**
 * Lists regular files under `root` whose root-relative path matches `match`, at most `maxDepth`
 * directories deep (files directly in root are depth 0). Symlinks are followed, but a directory is
 * entered once per real path, so a symlink loop ends the walk instead of recursing forever. Unreadable
 * entries are skipped.
 */
export async function scanFiles(
  root: string,
  maxDepth: number,
  match: (rel: string) => boolean,
): Promise<ScannedFile[]> {
  const out: ScannedFile[] = [];
  const seenDirs = new Set<string>();
  const seenFiles = new Set<string>();
  const walk = async (dir: string, depth: number): Promise<void> => {
    let real: string;
    let entries: Dirent[];
    try {
      real = await realpath(dir);
      if (seenDirs.has(real)) return;
      seenDirs.add(real);
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const full = join(dir, e.name);
      let s: Awaited<ReturnType<typeof stat>>;
      try {
        s = await stat(full); // follows symlinks; a dangling or looping link throws and is skipped
      } catch {
        continue;
      }
      if (s.isDirectory()) {
        if (depth < maxDepth) await walk(full, depth + 1);
      } else if (s.isFile()) {
        const rel = relative(root, full).split(sep).join('/');
        if (!match(rel)) continue;
        let id: string;
        try {
          id = await realpath(full);
        } catch {
          continue;
        }
        if (seenFiles.has(id)) continue;
        seenFiles.add(id);
        out.push({ path: full, size: s.size, mtimeMs: s.mtimeMs });
      }
    }
  };
  await walk(root, 0);
  return out;
}
