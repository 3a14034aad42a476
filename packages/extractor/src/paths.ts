import { homedir } from 'node:os';
import { join } from 'node:path';

/** The companion toolkit's home (`~/.axle`); every path below is overridable for tests. */
export function axleHome(): string {
  return join(homedir(), '.axle');
}

export const defaultPaths = (home = axleHome()) => ({
  home,
  config: join(home, 'config.json'),
  state: join(home, 'state.json'),
  queue: join(home, 'queue'),
  logs: join(home, 'logs'),
  killSwitch: join(home, 'DISABLED'),
});

/** Claude Code keeps one JSONL file per session under this folder (best-effort capture tier). */
export function claudeProjectsDir(): string {
  return join(homedir(), '.claude', 'projects');
}
