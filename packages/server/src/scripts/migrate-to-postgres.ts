// `axle-server migrate-to-postgres`: copies the SQLite file in AXLE_DATA_DIR (migrated first, as a start on it
// would) into the new PostgreSQL database AXLE_DATABASE_URL (migrated first), then checks the copy: the audit
// chain verifies and the ledger balances there. Prints one JSON line. Exit 0: copied and checked; 1: a check
// failed or the copy was refused (nothing copied); 2: no SQLite file, no AXLE_DATABASE_URL, a configuration that
// does not load or a database that cannot be opened.
import fs from 'node:fs';
import path from 'node:path';
import { type Config, loadConfig } from '../config.js';
import { verifyAuditChain } from '../services/audit.js';
import { checkLedger } from '../services/ledger-check.js';
import { Database } from '../store/db.js';
import { migrate } from '../store/migrate.js';
import { copyFromSqlite } from '../store/postgres/copy-from-sqlite.js';
import { PostgresDatabase } from '../store/postgres/db.js';
import { migratePostgres } from '../store/postgres/migrate.js';
import { failureText, redactUrl } from './data-dir-database.js';

export async function migrateToPostgres(env: NodeJS.ProcessEnv, out: (line: string) => void): Promise<number> {
  let config: Config;
  try {
    config = loadConfig(env);
  } catch (err) {
    out(JSON.stringify({ ok: false, error: failureText(err) }));
    return 2;
  }
  const file = path.join(config.dataDir, 'axle.db');
  if (!config.databaseUrl || !fs.existsSync(file)) {
    out(
      JSON.stringify({
        ok: false,
        error: config.databaseUrl ? `no database at ${file}` : 'set AXLE_DATABASE_URL to the new PostgreSQL database',
      }),
    );
    return 2;
  }
  let from: Database | undefined;
  let to: PostgresDatabase;
  try {
    from = await Database.open(file);
    to = await PostgresDatabase.open(config.databaseUrl, { poolSize: 2 });
  } catch (err) {
    await from?.close();
    out(JSON.stringify({ ok: false, error: failureText(err) }));
    return 2;
  }
  try {
    // A file last run by an older release is brought up to date first, as a start on it would: a column a later
    // migration adds and fills (220's credit value) would otherwise arrive on PostgreSQL with its default.
    await migrate(from);
    await migratePostgres(to, undefined, Date.now(), { waitMs: config.migrationLockWaitMs });
    const { tables } = await copyFromSqlite(from, to);
    const audit = await verifyAuditChain(to);
    const ledger = await checkLedger(to);
    const ok = audit.ok && ledger.length === 0;
    out(JSON.stringify({ ok, from: file, to: redactUrl(config.databaseUrl), tables, audit, ledger_problems: ledger }));
    return ok ? 0 : 1;
  } catch (err) {
    out(JSON.stringify({ ok: false, error: failureText(err) }));
    return 1;
  } finally {
    await from.close();
    await to.close();
  }
}
