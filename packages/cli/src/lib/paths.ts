import { homedir } from 'node:os';
import { join } from 'node:path';
// The subpath, not the package: commands that only need paths must not load the whole extractor.
import { defaultPaths } from '@axle/extractor/paths';

/** Everything the toolkit keeps under `~/.axle`, read from HOME at call time so tests can point it elsewhere. */
export function axlePaths() {
  const base = defaultPaths(join(homedir(), '.axle'));
  return {
    ...base,
    /** Sessions handed over by `axle-hook`, one JSON line each, until the runner takes them. */
    sessions: join(base.queue, 'sessions.jsonl'),
    runnerLock: join(base.home, 'runner.lock'),
    daemonPid: join(base.home, 'daemon.pid'),
    runnerLog: join(base.logs, 'runner.log'),
    daemonLog: join(base.logs, 'daemon.log'),
  };
}

export type AxlePaths = ReturnType<typeof axlePaths>;
