#!/usr/bin/env node
import { loadConfig } from './config.js';
import { LAUNCHED_ENV } from './launch/launcher.js';
import { CATALOG_HELD_USAGE, catalogHeld } from './scripts/catalog-held.js';
import { CATALOG_SYNC_USAGE, catalogSync } from './scripts/catalog-sync.js';
import { runCommand } from './scripts/data-dir-database.js';
import { migrateToPostgres } from './scripts/migrate-to-postgres.js';
import { startServer } from './server.js';

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
// An operator command's failure is one JSON line, never a stack trace.
if (args[0] === 'catalog' && args[1] === 'sync') {
  process.exit(await runCommand(out, () => catalogSync(args.slice(2), process.env, out)));
}
if (args[0] === 'catalog' && (args[1] === 'held' || args[1] === 'release')) {
  process.exit(await runCommand(out, () => catalogHeld(args.slice(1), process.env, out)));
}
if (args[0] === 'migrate-to-postgres') {
  process.exit(await runCommand(out, () => migrateToPostgres(process.env, out)));
}
// Anything else is a mistyped command, not a request for a server: one started on a new PostgreSQL database would
// write its first rows there (and migrate-to-postgres would refuse it as not new).
if (args.length > 0) {
  out(JSON.stringify({ ok: false, error: USAGE }));
  process.exit(2);
}

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
