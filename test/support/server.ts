import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { ManualClock } from '../../packages/server/src/clock.js';
import { loadConfig } from '../../packages/server/src/config.js';
import { startServer, type RunningServer } from '../../packages/server/src/server.js';

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
  opts: { dataDir?: string; clock?: ManualClock; embedWorkerFile?: string } = {},
): Promise<TestServer> {
  const dataDir = opts.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'axle-test-'));
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
