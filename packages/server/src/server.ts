import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp, type BuiltApp } from './app.js';
import { systemClock, type Clock } from './clock.js';
import { compose } from './compose.js';
import type { Config } from './config.js';
import { answerClientErrors } from './http/client-error.js';
import { boundPipelining, capConnections, timeoutOptions } from './http/connections.js';
import { createLogger, type Logger } from './logger.js';
import { loadJwtSecret } from './services/jwt.js';
import { openStore } from './store/open.js';
import type { Transactor } from './store/queryable.js';

export interface RunningServer {
  url: string;
  port: number;
  db: Transactor;
  built: BuiltApp;
  logger: Logger;
  close(): Promise<void>;
}

export interface StartOptions {
  config: Config;
  clock?: Clock;
  /** Where JSON logs go (tests capture them); stdout by default. */
  logStream?: NodeJS.WritableStream;
  /** The embedding worker's script (tests give a stand-in); the compiled embed-worker by default. */
  embedWorkerFile?: string;
}

/** config -> store -> services (compose.ts) -> app -> listen. Used by main.ts and by in-process integration tests. */
export async function startServer({
  config,
  clock = systemClock,
  logStream,
  embedWorkerFile,
}: StartOptions): Promise<RunningServer> {
  const logger = createLogger(config.logLevel, logStream);
  fs.mkdirSync(config.dataDir, { recursive: true });
  // First: a bad stored secret stops the start before anything is opened.
  const jwtSecret = loadJwtSecret(config.jwtSecret, config.dataDir);
  if (config.databaseUrl && !config.jwtSecret)
    logger.warn(
      'AXLE_JWT_SECRET is not set: this instance signs sessions with its own secret (<data dir>/jwt-secret). ' +
        'Instances sharing one PostgreSQL database must share AXLE_JWT_SECRET, or a session from one fails on the others.',
    );
  const store = await openStore({
    databaseUrl: config.databaseUrl,
    databasePool: config.databasePool,
    databaseStatementTimeoutMs: config.databaseStatementTimeoutMs,
    dataDir: config.dataDir,
    now: () => clock.now(),
    migrationLock: { waitMs: config.migrationLockWaitMs, logger },
  });
  const { db } = store;

  let listened!: () => void;
  const listening = new Promise<void>((resolve) => (listened = resolve));
  let baseUrl = config.baseUrl ?? '';
  let localUrl = '';
  const composed = await compose({
    config,
    clock,
    logger,
    store,
    jwtSecret,
    baseUrl: () => baseUrl,
    localUrl: () => localUrl,
    listening,
    embedWorkerFile,
  });
  const built = createApp(composed.deps);
  const server = http.createServer(timeoutOptions(config.connections), boundPipelining(built.app.callback()));
  capConnections(server, config.connections.maxConnections);
  answerClientErrors(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, resolve);
  });
  listened();
  const port = (server.address() as AddressInfo).port;
  const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  const url = `http://${host}:${port}`;
  baseUrl ||= url;
  // A wildcard listener is reached on loopback; a specific address only on itself.
  const wildcard = ['0.0.0.0', '::', ''].includes(config.host);
  const localHost = wildcard ? '127.0.0.1' : config.host.includes(':') ? `[${config.host}]` : config.host;
  localUrl = `http://${localHost}:${port}`;

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      await composed.close();
      await db.close();
    })());
  return { url, port, db, built, logger, close };
}
