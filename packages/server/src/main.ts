#!/usr/bin/env node
import { LAUNCHED_ENV } from './launch/launcher.js';
import { CATALOG_HELD_USAGE, CATALOG_SYNC_USAGE } from './scripts/usage.js';

// Started by the launcher (bin/axle-server.js): when it is gone, however it went, so is this process.
if (process.env[LAUNCHED_ENV] && process.send) process.on('disconnect', () => process.kill(process.pid, 'SIGKILL'));

const USAGE = [
  'usage: axle-server (the server)',
  'axle-server migrate-to-postgres',
  CATALOG_SYNC_USAGE.replace('usage: ', ''),
  CATALOG_HELD_USAGE.replace('usage: ', ''),
].join(' | ');

const args = process.argv.slice(2);
const out = (line: string) => console.log(line);
/**
 * Runs an operator command and exits with its status. Each command loads only its own modules, and none loads the
 * server's; a failure is one JSON line, never a stack trace.
 */
async function command(run: () => Promise<number>): Promise<never> {
  const { runCommand } = await import('./scripts/data-dir-database.js');
  process.exit(await runCommand(out, run));
}
if (args[0] === 'catalog' && args[1] === 'sync')
  await command(async () => (await import('./scripts/catalog-sync.js')).catalogSync(args.slice(2), process.env, out));
if (args[0] === 'catalog' && (args[1] === 'held' || args[1] === 'release'))
  await command(async () => (await import('./scripts/catalog-held.js')).catalogHeld(args.slice(1), process.env, out));
if (args[0] === 'migrate-to-postgres')
  await command(async () => (await import('./scripts/migrate-to-postgres.js')).migrateToPostgres(process.env, out));
// Anything else is a mistyped command, not a request for a server: one started on a new PostgreSQL database would
// write its first rows there (and migrate-to-postgres would refuse it as not new). It is answered before the server's
// modules load.
if (args.length > 0) {
  out(JSON.stringify({ ok: false, error: USAGE }));
  process.exit(2);
}

const { loadConfig } = await import('./config.js');
const { startServer } = await import('./server.js');
let config: ReturnType<typeof loadConfig> | undefined;
try {
  config = loadConfig();
  const server = await startServer({ config });
  server.logger.info({ url: server.url }, 'listening');
  process.stdout.write(`Axle server listening on ${server.url}\n`);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    server.logger.info({ signal }, 'shutting down');
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
} catch (err) {
  // A bad configuration or catalog stops the server with a message, not a stack trace; a damaged or held SQLite file
  // with where it is and what to do.
  const code = (err as { code?: unknown }).code;
  const cause = (err as { cause?: { code?: unknown } }).cause?.code;
  const sqlite = config && !config.databaseUrl ? config.dataDir : undefined;
  let message = (err as Error).message;
  if (sqlite && (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT'))
    message += ` (the SQLite database in ${sqlite}: restore it from a backup, or move it away to start with an empty one)`;
  else if (sqlite && (cause === 'SQLITE_BUSY' || cause === 'SQLITE_LOCKED'))
    message = `another process holds the SQLite database in ${sqlite} (a second server on this data folder?): stop it, or start again once it is done`;
  process.stderr.write(`axle-server: ${message}\n`);
  process.exit(1);
}
