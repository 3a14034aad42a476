import type { Database } from '../db.js';
import type { Queryable } from '../queryable.js';
import { readMigrations } from '../migrate.js';
import type { PostgresDatabase } from './db.js';

/** Rows per INSERT while copying. */
const BATCH = 500;

/**
 * Not copied: the migration records (each dialect keeps its own), SQLite's full-text tables (PostgreSQL
 * indexes the copied rows itself) and the catalog, which the server imports from its catalog file at start
 * (its fingerprint in meta goes with it, so the first start imports it).
 */
const SKIPPED = new Set(['schema_migrations', 'skills']);
const skipped = (table: string) => SKIPPED.has(table) || table.startsWith('sqlite_') || /_fts(_\w+)?$/.test(table);

export interface CopyReport {
  /** Rows copied per table, in copy order. */
  tables: Record<string, number>;
}

/**
 * Copies every row of the SQLite database `from`, as it is at one moment, into the migrated, empty PostgreSQL database `to`, in one
 * transaction: tables in the order the migrations created them (so foreign keys hold), the columns both
 * sides have, identity counters moved past the copied ids. Throws, copying nothing, when `to` already
 * holds data, `from` is written during the copy, `from` lacks a migration of this release, or a SQLite table has no PostgreSQL counterpart.
 */
export async function copyFromSqlite(from: Database, to: PostgresDatabase): Promise<CopyReport> {
  // Every read in one SQLite read transaction: a server still writing to the file cannot tear the copy (an
  // account read after its table was copied, its credits with it); the copy is the file at one moment. A write
  // committed after the copy began would be missing on PostgreSQL: the copy is then refused before it commits.
  const version = await from.dataVersion();
  return from.snapshot((src) =>
    copy(src, to, async () => {
      if ((await from.dataVersion()) !== version)
        throw new Error(
          'the SQLite file was written during the copy (is a server still running on it?); stop it first',
        );
    }),
  );
}

async function copy(from: Queryable, to: PostgresDatabase, unchanged: () => Promise<void>): Promise<CopyReport> {
  const tables = (
    await from.all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY rowid")
  )
    .map((t) => t.name)
    .filter((t) => !skipped(t));
  const target = new Map<string, Set<string>>();
  for (const r of await to.all<{ table_name: string; column_name: string; is_generated: string }>(
    `SELECT table_name, column_name, is_generated FROM information_schema.columns
      WHERE table_schema = current_schema()`,
  )) {
    if (r.is_generated === 'ALWAYS') continue;
    if (!target.has(r.table_name)) target.set(r.table_name, new Set());
    target.get(r.table_name)!.add(r.column_name);
  }
  // Rows of a file behind the code's migrations lack what those migrations fill in (PostgreSQL's defaults stand in).
  const applied = new Set(
    (await from.all<{ version: number }>('SELECT version FROM schema_migrations')).map((r) => r.version),
  );
  const behind = readMigrations().filter((m) => !applied.has(m.version));
  if (behind.length > 0)
    throw new Error(
      `the SQLite file is not migrated: ${behind.map((m) => `${m.version}_${m.name}`).join(', ')} not applied`,
    );
  const missing = tables.filter((t) => !target.has(t));
  if (missing.length > 0) throw new Error(`no PostgreSQL table for: ${missing.join(', ')} (a migration to port)`);

  return to.tx(async (q) => {
    for (const t of tables) {
      const n = await q.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${t}`);
      if ((n?.n ?? 0) > 0 && t !== 'meta') throw new Error(`the PostgreSQL database is not new: ${t} holds rows`);
    }
    const report: CopyReport = { tables: {} };
    for (const t of tables) {
      const source = (await from.all<{ name: string }>(`PRAGMA table_info(${t})`)).map((c) => c.name);
      const extra = source.filter((c) => !target.get(t)!.has(c));
      if (extra.length > 0) throw new Error(`no PostgreSQL column for ${t}.${extra.join(`, ${t}.`)}`);
      const cols = source.join(', ');
      // Integers are read as their decimal text: the driver's JavaScript number would round one beyond 2^53.
      const read = source
        .map((c) => `CASE WHEN typeof(${c}) = 'integer' THEN CAST(${c} AS TEXT) ELSE ${c} END AS ${c}`)
        .join(', ');
      const where = t === 'meta' ? " WHERE key <> 'catalog_fingerprint'" : '';
      if (t === 'meta') await q.run("DELETE FROM meta WHERE key <> 'catalog_fingerprint'");
      let copied = 0;
      for (let after = -Infinity; ; ) {
        const rows = await from.all<Record<string, unknown>>(
          `SELECT rowid AS "rowid:", ${read} FROM ${t} WHERE rowid > ?${where.replace(' WHERE', ' AND')} ORDER BY rowid LIMIT ?`,
          [after, BATCH],
        );
        if (rows.length === 0) break;
        after = rows[rows.length - 1]!['rowid:'] as number;
        await q.run(
          `INSERT INTO ${t} (${cols}) VALUES ${rows.map(() => `(${source.map(() => '?').join(', ')})`).join(', ')}`,
          rows.flatMap((r) => source.map((c) => r[c])),
        );
        copied += rows.length;
        if (rows.length < BATCH) break;
      }
      report.tables[t] = copied;
    }
    // Identity columns were given their ids: the next generated one follows the largest.
    for (const r of await q.all<{ table_name: string; column_name: string }>(
      `SELECT table_name, column_name FROM information_schema.columns
        WHERE table_schema = current_schema() AND is_identity = 'YES'`,
    ))
      await q.get(
        `SELECT setval(pg_get_serial_sequence(?, ?), COALESCE((SELECT MAX(${r.column_name}) FROM ${r.table_name}), 0) + 1, false)`,
        [r.table_name, r.column_name],
      );
    await unchanged();
    return report;
  });
}
