// `axle-server migrate-to-postgres`: an embedded installation's SQLite file copied into a new PostgreSQL
// database serves the same accounts, money and learnings from there.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToPostgres } from '../src/scripts/migrate-to-postgres.js';
import { creditsStore } from '../src/store/credits.js';
import { Database } from '../src/store/db.js';
import { migrate, readMigrations } from '../src/store/migrate.js';
import { copyFromSqlite } from '../src/store/postgres/copy-from-sqlite.js';
import { PostgresDatabase } from '../src/store/postgres/db.js';
import { migratePostgres } from '../src/store/postgres/migrate.js';
import type { Queryable } from '../src/store/queryable.js';
import { BACKEND, backendEnv } from '../../../test/support/backend.js';
import { startTestServer, type TestServer } from '../../../test/support/server.js';
import { learningBody } from './knowledge-helpers.js';
import { getUnlock, newBuyer, seedLearning } from './money-helpers.js';

describe.skipIf(BACKEND !== 'postgres')('axle-server migrate-to-postgres', () => {
  let sqlite: TestServer;
  let url: string;
  let buyer: Awaited<ReturnType<typeof newBuyer>>;
  let unlocked: string;
  let unlockedTitle: string;
  let other: string;
  let learned: string;
  beforeAll(async () => {
    sqlite = await startTestServer({}, { sqlite: true });
    buyer = await newBuyer(sqlite, { credits: 5 });
    const [a, b] = await Promise.all([seedLearning(sqlite), seedLearning(sqlite)]);
    unlocked = a!.id;
    unlockedTitle = a!.title;
    other = b!.id;
    expect((await getUnlock(sqlite, unlocked, { 'x-api-key': buyer.key })).status).toBe(200);
    const res = await fetch(`${sqlite.url}/learn`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': buyer.key },
      body: JSON.stringify(learningBody(4242)),
    });
    expect(res.status).toBe(201);
    learned = ((await res.json()) as { id: string }).id;
    await sqlite.stop({ keepData: true });
    url = (await backendEnv('empty')).AXLE_DATABASE_URL!;
  });
  afterAll(() => fs.rmSync(sqlite.dataDir, { recursive: true, force: true }));

  it('copies every row, checks the chain and the ledger, and refuses a database that is not new', async () => {
    const env = { AXLE_DATA_DIR: sqlite.dataDir, AXLE_DATABASE_URL: url };
    const lines: string[] = [];
    expect(await migrateToPostgres(env, (l) => lines.push(l))).toBe(0);
    const report = JSON.parse(lines[0]!) as { ok: boolean; tables: Record<string, number>; audit: { ok: boolean } };
    expect(report.ok).toBe(true);
    expect(report.audit.ok).toBe(true);

    const from = await Database.open(path.join(sqlite.dataDir, 'axle.db'));
    const to = await PostgresDatabase.open(url);
    try {
      for (const [table, n] of Object.entries(report.tables)) {
        const where = table === 'meta' ? " WHERE key <> 'catalog_fingerprint'" : '';
        expect((await from.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}${where}`))?.n, table).toBe(n);
        expect((await to.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}${where}`))?.n, table).toBe(n);
      }
      expect(report.tables.accounts).toBeGreaterThan(0);
      expect(report.tables.unlocks).toBe(1);
      expect(report.tables.audit_log).toBeGreaterThan(0);
      expect((await creditsStore.balance(to, buyer.accountId)).unlocks).toBe(4);
    } finally {
      await from.close();
      await to.close();
    }
    // A second run finds data there and copies nothing.
    expect(await migrateToPostgres(env, (l) => lines.push(l))).toBe(1);
    expect(JSON.parse(lines[1]!).error).toMatch(/not new/);
    expect(await migrateToPostgres({ AXLE_DATA_DIR: sqlite.dataDir }, (l) => lines.push(l))).toBe(2);
  });

  it('a server on the copy serves the same key, credits and learnings, search included', async () => {
    const pg = await startTestServer({ AXLE_DATABASE_URL: url });
    try {
      // The earlier unlock is remembered (a repeat costs no credit); a new one spends one of the 4 left.
      expect((await getUnlock(pg, unlocked, { 'x-api-key': buyer.key })).status).toBe(200);
      expect((await getUnlock(pg, other, { 'x-api-key': buyer.key })).status).toBe(200);
      expect((await creditsStore.balance(pg.db, buyer.accountId)).unlocks).toBe(3);
      // Learnings copied as approved are indexed for search on PostgreSQL; the held submission is not shown.
      const search = await fetch(`${pg.url}/knowledge`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: unlockedTitle }),
      });
      const ids = ((await search.json()) as { results: Array<{ id: string }> }).results.map((r) => r.id);
      expect(ids).toContain(unlocked);
      expect(ids).not.toContain(learned);
    } finally {
      await pg.stop();
    }
  });
});

describe.skipIf(BACKEND !== 'postgres')('axle-server migrate-to-postgres from a file of an older release', () => {
  it('brings the SQLite file up to date first: credits bought before 220 keep their value on PostgreSQL', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'axle-old-'));
    try {
      // An installation last run before migration 220: its credits carry no unlock value yet.
      const old = await Database.open(path.join(dataDir, 'axle.db'));
      await migrate(
        old,
        readMigrations().filter((m) => m.version < 220),
      );
      await old.run('INSERT INTO accounts (id, email, created_at) VALUES (?, ?, ?)', ['acc_old', 'ünï@example.com', 1]);
      await old.run('INSERT INTO credit_balances (account_id, unlocks, queries, updated_at) VALUES (?, ?, ?, ?)', [
        'acc_old',
        3,
        0,
        1,
      ]);
      await old.close();

      const url = (await backendEnv('empty')).AXLE_DATABASE_URL!;
      const lines: string[] = [];
      expect(await migrateToPostgres({ AXLE_DATA_DIR: dataDir, AXLE_DATABASE_URL: url }, (l) => lines.push(l))).toBe(0);
      const to = await PostgresDatabase.open(url);
      try {
        // The value SQLite's own migration 220 gives them (3 × 66,666), as a start on the file would have.
        expect((await creditsStore.balance(to, 'acc_old')).unlocks).toBe(3);
        expect(
          (
            await to.get<{ v: number }>('SELECT unlock_value_micro AS v FROM credit_balances WHERE account_id = ?', [
              'acc_old',
            ])
          )?.v,
        ).toBe(3 * 66666);
        expect((await to.get<{ email: string }>('SELECT email FROM accounts WHERE id = ?', ['acc_old']))?.email).toBe(
          'ünï@example.com',
        );
      } finally {
        await to.close();
      }
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

/** Both databases migrated, and the SQLite one holding account acc_a. */
async function migratedWithAccount(from: Database, to: PostgresDatabase): Promise<void> {
  await migrate(from);
  await migratePostgres(to);
  await from.run('INSERT INTO accounts (id, email, created_at) VALUES (?, ?, ?)', ['acc_a', 'a@example.com', 1]);
}

describe.skipIf(BACKEND !== 'postgres')('copyFromSqlite while the SQLite server still writes', () => {
  it('refuses a file written during the copy (nothing copied), and copies it whole once the writes stop', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'axle-live-'));
    const file = path.join(dataDir, 'axle.db');
    const from = await Database.open(file);
    const server = await Database.open(file);
    const url = (await backendEnv('empty')).AXLE_DATABASE_URL!;
    const to = await PostgresDatabase.open(url);
    try {
      await migratedWithAccount(from, to);
      // The still-running server commits an account and its credits as the copy writes the accounts it read.
      let wrote = false;
      const watched = new Proxy(to, {
        get(target, prop) {
          if (prop !== 'tx') return Reflect.get(target, prop, target);
          return <T>(fn: (q: Queryable) => Promise<T>) =>
            target.tx((q) =>
              fn(
                new Proxy(q, {
                  get(inner, name) {
                    if (name !== 'run') return Reflect.get(inner, name, inner);
                    return async (sql: string, params?: unknown[]) => {
                      if (!wrote && sql.startsWith('INSERT INTO accounts')) {
                        wrote = true;
                        await server.tx(async (w) => {
                          await w.run('INSERT INTO accounts (id, email, created_at) VALUES (?, ?, ?)', [
                            'acc_b',
                            'b@example.com',
                            2,
                          ]);
                          await w.run(
                            'INSERT INTO credit_balances (account_id, unlocks, queries, unlock_value_micro, updated_at) VALUES (?, ?, ?, ?, ?)',
                            ['acc_b', 1, 0, 66666, 2],
                          );
                        });
                      }
                      return inner.run(sql, params as never);
                    };
                  },
                }),
              ),
            );
        },
      });
      // The copy is refused, copying nothing: what the server wrote after it began would be lost on PostgreSQL.
      await expect(copyFromSqlite(from, watched)).rejects.toThrow(/written during the copy/);
      expect(wrote).toBe(true);
      expect((await to.get<{ n: number }>('SELECT COUNT(*) AS n FROM accounts'))?.n).toBe(0);
      expect((await to.get<{ n: number }>('SELECT COUNT(*) AS n FROM credit_balances'))?.n).toBe(0);
      // Once the server is stopped, the copy takes the file at that moment, both of its accounts and the credits.
      const { tables } = await copyFromSqlite(from, to);
      expect(tables.accounts).toBe(2);
      expect(tables.credit_balances).toBe(1);
    } finally {
      await to.close();
      await server.close();
      await from.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe.skipIf(BACKEND !== 'postgres')('copyFromSqlite and integers beyond 2^53', () => {
  it('copies money beyond 2^53 to the unit, not rounded through a JavaScript number', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'axle-big-'));
    const from = await Database.open(path.join(dataDir, 'axle.db'));
    const url = (await backendEnv('empty')).AXLE_DATABASE_URL!;
    const to = await PostgresDatabase.open(url);
    try {
      await migratedWithAccount(from, to);
      const purchase = (id: string, amount: string) =>
        from.exec(
          `INSERT INTO purchases (id, account_id, pack_id, amount_micro, queries_added, unlocks_added, checkout_session_id, created_at)
           VALUES ('${id}', 'acc_a', 'pro', ${amount}, 0, 0, 'cs_${id}', 1)`,
        );
      await purchase('pur_max', '9007199254740991');
      const { tables } = await copyFromSqlite(from, to);
      expect(tables.purchases).toBe(1);
      expect(
        (await to.get<{ a: string }>("SELECT amount_micro::text AS a FROM purchases WHERE id = 'pur_max'"))?.a,
      ).toBe('9007199254740991');

      // One past it, and far past it, which a JavaScript number would round: copied to the unit.
      await to.exec('TRUNCATE accounts, purchases CASCADE');
      await purchase('pur_big', '9007199254740993');
      await purchase('pur_max64', '9223372036854775807');
      expect((await copyFromSqlite(from, to)).tables.purchases).toBe(3);
      expect(
        await to.all<{ id: string; a: string }>('SELECT id, amount_micro::text AS a FROM purchases ORDER BY id'),
      ).toEqual([
        { id: 'pur_big', a: '9007199254740993' },
        { id: 'pur_max', a: '9007199254740991' },
        { id: 'pur_max64', a: '9223372036854775807' },
      ]);
    } finally {
      await to.close();
      await from.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
