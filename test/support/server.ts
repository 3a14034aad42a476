import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { ManualClock } from '../../packages/server/src/clock.js';
import { loadConfig } from '../../packages/server/src/config.js';
import { startServer, type RunningServer } from '../../packages/server/src/server.js';
import { BACKEND, backendEnv, prepareDataDir } from './backend.js';

export interface TestServer extends RunningServer {
  clock: ManualClock;
  dataDir: string;
  /** Every JSON log line the server wrote, for assertions that secrets never reach logs. */
  logs: string[];
  /** Stops the server and, unless kept, removes its data dir. */
  stop(opts?: { keepData?: boolean }): Promise<void>;
}

/**
 * A real server on a free loopback port with its own data dir and a clock the test moves.
 * `env` is passed through loadConfig exactly like process.env would be.
 */
export async function startTestServer(
  env: Record<string, string> = {},
  opts: {
    dataDir?: string;
    clock?: ManualClock;
    embedWorkerFile?: string;
    /** On the data dir's SQLite file whatever the run's backend. */
    sqlite?: boolean;
  } = {},
): Promise<TestServer> {
  // A new data dir starts where a first start of the bundled catalog would leave it (another catalog: migrated).
  const prepared = env.AXLE_CATALOG ? 'migrated' : 'catalog';
  const sqlite = opts.sqlite || BACKEND === 'sqlite';
  let dataDir = opts.dataDir;
  if (!dataDir) {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'axle-test-'));
    if (sqlite) prepareDataDir(dataDir, prepared);
  }
  const clock = opts.clock ?? new ManualClock();
  const logs: string[] = [];
  const logStream = new Writable({
    write(chunk, _enc, cb) {
      logs.push(...String(chunk).split('\n').filter(Boolean));
      cb();
    },
  });
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    AXLE_DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    AXLE_SEMANTIC_SEARCH: 'off',
    ...(sqlite ? {} : await backendEnv(prepared)),
    ...env,
  });
  const server = await startServer({ config, clock, logStream, embedWorkerFile: opts.embedWorkerFile });
  return Object.assign(server, {
    clock,
    dataDir,
    logs,
    async stop({ keepData = false } = {}) {
      await server.close();
      if (!keepData) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  });
}
