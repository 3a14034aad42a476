import { readdir, rm, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import { exists } from './files.js';
import { axlePaths } from './paths.js';

/** Files in a folder tree (deepest paths as found); none when it does not exist. */
async function filesUnder(dir: string): Promise<string[]> {
  let entries: Array<{ name: string; isDirectory(): boolean }>;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  const nested = await Promise.all(
    entries.map((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : Promise.resolve([join(dir, e.name)]))),
  );
  return nested.flat();
}

/** Removes `dir` and every folder in it that holds no file. */
async function removeEmptyFolders(dir: string): Promise<void> {
  let entries: Array<{ name: string; isDirectory(): boolean }>;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) if (e.isDirectory()) await removeEmptyFolders(join(dir, e.name));
  await rmdir(dir).catch(() => undefined); // not empty: stays
}

/**
 * What setup and the capture it installed leave in ~/.axle: the config with the key, state, logs, pid
 * and lock files, the kill switch, the hand-over queue. Drafts in queue/ are the person's own words and
 * stay (they are reported); folders left empty, ~/.axle included, go. With `dryRun` only lists.
 */
export async function clearAxleHome(dryRun: boolean): Promise<{ removed: string[]; keptDrafts: string[] }> {
  const p = axlePaths();
  const files = [p.config, p.state, p.killSwitch, p.daemonPid, p.runnerLock, p.sessions];
  const removed = [
    ...(await Promise.all(files.map(async (f) => ((await exists(f)) ? f : null)))).filter((f): f is string => !!f),
    ...(await filesUnder(p.logs)),
  ];
  const keptDrafts = (await filesUnder(p.queue)).filter((f) => f !== p.sessions);
  if (!dryRun) {
    for (const f of removed) await rm(f, { force: true });
    await removeEmptyFolders(p.home);
  }
  return { removed, keptDrafts };
}
