import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadCatalog } from '../src/catalog/load.js';
import { Database } from '../src/store/db.js';
import { learningsStore } from '../src/store/learnings.js';
import { PostgresDatabase } from '../src/store/postgres/db.js';
import { createPostgresLearningsSearch } from '../src/store/postgres/learnings-search.js';
import { migratePostgres } from '../src/store/postgres/migrate.js';
import { createPostgresSkillsStore } from '../src/store/postgres/skills.js';
import { migrate, POSTGRES_MIGRATIONS_DIR, readMigrations } from '../src/store/migrate.js';
import type { Queryable, Transactor } from '../src/store/queryable.js';
import { BACKEND, backendEnv, openTestStore } from '../../../test/support/backend.js';
import { newLearning } from './learning-fixture.js';
import { SMALL_CATALOG } from './search-helpers.js';

let dir: string;
let db: Database;

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'axle-store-'));
  db = await Database.open(path.join(dir, 'nested', 'axle.db'));
});
afterEach(async () => {
  await db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(BACKEND !== 'sqlite')('the SQLite file', () => {
  it('creates the file in WAL mode and applies every migration once', async () => {
    expect(fs.existsSync(path.join(dir, 'nested', 'axle.db'))).toBe(true);
    const mode = await db.get<{ journal_mode: string }>('PRAGMA journal_mode');
    expect(mode?.journal_mode).toBe('wal');
    const first = await migrate(db);
    expect(first).toEqual(readMigrations().map((m) => m.version));
    expect(await migrate(db)).toEqual([]);
  });

  it('keeps the database, WAL and shared-memory files readable by the owner only', async () => {
    const file = path.join(dir, 'nested', 'axle.db');
    await migrate(db);
    const mode = (f: string) => fs.statSync(f).mode & 0o777;
    for (const f of [file, `${file}-wal`, `${file}-shm`]) expect(mode(f)).toBe(0o600);
    expect(mode(path.join(dir, 'nested'))).toBe(0o700);
    // Files left more open (by an earlier version or by hand) are narrowed on open.
    await db.close();
    for (const f of [file, `${file}-wal`, `${file}-shm`]) if (fs.existsSync(f)) fs.chmodSync(f, 0o644);
    db = await Database.open(file);
    await db.run('CREATE TABLE t (v INTEGER)');
    for (const f of [file, `${file}-wal`, `${file}-shm`]) expect(mode(f)).toBe(0o600);
  });

  it('reuses prepared read statements without holding a snapshot, and finalizes them at close', async () => {
    await db.exec('CREATE TABLE p (v INTEGER); INSERT INTO p VALUES (1), (2)');
    const count = () => db.get<{ n: number }>('SELECT COUNT(*) AS n FROM p WHERE v > ?', [0]);
    expect(await Promise.all([count(), count(), count()])).toEqual([{ n: 2 }, { n: 2 }, { n: 2 }]);
    await db.run('INSERT INTO p VALUES (3)');
    // A statement left open after `get` would keep its connection's read snapshot: other statements would still see two rows.
    expect(await db.get('SELECT COUNT(*) AS n FROM p')).toEqual({ n: 3 });
    expect(await count()).toEqual({ n: 3 });
    expect(await db.all('SELECT v FROM p WHERE v > ? ORDER BY v', [1])).toEqual([{ v: 2 }, { v: 3 }]);
    // Bad SQL fails every time (it is not kept), and close below still succeeds.
    await expect(db.all('SELEC v FROM p')).rejects.toThrow(/syntax error/);
    await expect(db.all('SELEC v FROM p')).rejects.toThrow(/syntax error/);
  });
});

describe(`transactions (${BACKEND})`, () => {
  let store: Awaited<ReturnType<typeof openTestStore>>;
  let t: Transactor;
  beforeAll(async () => {
    store = await openTestStore();
    t = store.db;
  });
  afterAll(() => store.close());

  it('rolls a transaction back on any throw and keeps earlier commits', async () => {
    await t.exec('CREATE TABLE tx_t (v INTEGER)');
    await t.tx(async (q) => {
      await q.run('INSERT INTO tx_t VALUES (1)');
    });
    await expect(
      t.tx(async (q) => {
        await q.run('INSERT INTO tx_t VALUES (2)');
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await t.all('SELECT v FROM tx_t')).toEqual([{ v: 1 }]);
  });

  it('getLast commits the transaction with its statement; a failing one rolls all of it back', async () => {
    await t.exec('CREATE TABLE gl (v TEXT NOT NULL, n INTEGER CHECK (n >= 0))');
    // A value that would end the statement if it were pasted in unescaped stays one string.
    const hostile = "x'); DROP TABLE gl; --";
    const row = await t.tx(async (q) => {
      await q.run('INSERT INTO gl VALUES (?, ?)', ['first', 1]);
      return q.getLast<{ v: string }>('INSERT INTO gl VALUES (?, ?) RETURNING v', [hostile, 2]);
    });
    expect(row).toEqual({ v: hostile });
    await expect(
      t.tx(async (q) => {
        await q.run('INSERT INTO gl VALUES (?, ?)', ['second', 3]);
        return q.getLast('INSERT INTO gl VALUES (?, ?) RETURNING v', ['negative', -1]);
      }),
    ).rejects.toThrow();
    // The connections are usable afterwards, and only the first transaction's rows are there.
    expect(await t.all('SELECT v, n FROM gl ORDER BY n')).toEqual([
      { v: 'first', n: 1 },
      { v: hostile, n: 2 },
    ]);
  });

  it.runIf(BACKEND === 'postgres')(
    'answers a transaction that still collides after every attempt as database_unavailable (503), not a raw error',
    async () => {
      let attempts = 0;
      await expect(
        t.tx(async (q) => {
          attempts++;
          await q.get('SELECT 1 AS x');
          throw Object.assign(new Error('could not serialize access'), { code: '40001' });
        }),
      ).rejects.toMatchObject({ name: 'DomainError', code: 'database_unavailable', retryAfterSeconds: 1 });
      expect(attempts).toBeGreaterThan(1);
    },
    30_000,
  );

  /** Ends the backend of the transaction `q` runs in from another connection, and waits until its client sees it. */
  async function terminateConnection(q: Queryable): Promise<void> {
    const { pid } = (await q.get<{ pid: number }>('SELECT pg_backend_pid() AS pid'))!;
    const conn = (q as unknown as { conn: pg.PoolClient }).conn;
    const ended = new Promise((resolve) => conn.once('end', resolve));
    await (t as PostgresDatabase).pool.query('SELECT pg_terminate_backend($1)', [pid]);
    await ended;
  }

  // Found by terminating the server's backends (pg_terminate_backend) during a burst of requests: the
  // connection of a transaction that was between statements emitted an 'error' nobody listened to, and the
  // whole server process exited.
  it.runIf(BACKEND === 'postgres')(
    "keeps the process up when a transaction's connection is terminated between statements: the transaction answers database_unavailable",
    async () => {
      await expect(
        t.tx(async (q) => {
          // While this transaction waits on the application, an administrator (or a failover) ends its backend.
          await terminateConnection(q);
          return q.get('SELECT 1 AS x');
        }),
      ).rejects.toMatchObject({ name: 'DomainError', code: 'database_unavailable' });
      // The pool replaced the connection: the next transaction runs.
      expect(await t.tx((q) => q.get('SELECT 1 AS x'))).toEqual({ x: 1 });
    },
  );

  it.runIf(BACKEND === 'postgres')(
    'answers a transaction whose connection is lost as it fails (its rollback cannot be sent) as database_unavailable, not its raw error',
    async () => {
      await expect(
        t.tx(async (q) => {
          await terminateConnection(q);
          // A serialization failure would be run again, but on a connection that is gone nothing can be.
          throw Object.assign(new Error('could not serialize access'), { code: '40001' });
        }),
      ).rejects.toMatchObject({ name: 'DomainError', code: 'database_unavailable' });
    },
  );

  it.runIf(BACKEND === 'postgres')(
    "getLast runs a statement its connection has prepared as EXECUTE, not parsed and planned again; values bind alike, a changed table's statement is prepared again",
    async () => {
      // One connection, so every transaction runs on it and its prepared statements can be read.
      const one = await PostgresDatabase.open(store.env.AXLE_DATABASE_URL!, { poolSize: 1 });
      try {
        await one.exec('CREATE TABLE gl_prepared (v TEXT, n BIGINT, z INTEGER)');
        const sql = 'INSERT INTO gl_prepared VALUES (?, ?, ?) RETURNING *';
        const values: Array<[string, number, number | null]> = [
          ["it's", 1, null],
          ['$1 ?', 1_732_712_345_678, 2],
          ["'); DROP TABLE gl_prepared; --", 3, 0],
        ];
        const rows = [];
        for (const v of values) rows.push(await one.tx((q) => q.getLast(sql, v)));
        expect(rows).toEqual(values.map(([v, n, z]) => ({ v, n, z })));
        const runs = () =>
          one.all<{ runs: number }>(
            "SELECT generic_plans + custom_plans AS runs FROM pg_prepared_statements WHERE statement LIKE 'INSERT INTO gl_prepared%'",
          );
        // Prepared once, run three times: the second and third came as EXECUTE.
        expect(await runs()).toEqual([{ runs: 3 }]);
        // Another instance changes the table: the prepared statement no longer fits and is prepared again.
        await t.exec('ALTER TABLE gl_prepared ADD COLUMN w INTEGER NOT NULL DEFAULT 7');
        expect(await one.tx((q) => q.getLast(sql, ['after', 4, 1]))).toEqual({ v: 'after', n: 4, z: 1, w: 7 });
        expect(await one.get('SELECT COUNT(*) AS n FROM gl_prepared')).toEqual({ n: 4 });
      } finally {
        await one.close();
      }
    },
  );

  it.runIf(BACKEND === 'postgres')(
    "read committed: the locks asked for first go with BEGIN in the next prepared statement's message (a check and a booking in two round trips)",
    async () => {
      const one = await PostgresDatabase.open(store.env.AXLE_DATABASE_URL!, { poolSize: 1 });
      try {
        await one.exec('CREATE TABLE rc_trips (k TEXT NOT NULL, n INTEGER NOT NULL)');
        // The pool's one connection, its messages recorded.
        const conn = await one.connect();
        conn.release();
        const sent: string[] = [];
        const query = conn.query.bind(conn) as (...args: unknown[]) => unknown;
        (conn as unknown as { query: unknown }).query = (config: unknown, ...rest: unknown[]) => {
          sent.push(typeof config === 'string' ? config : (config as { text: string }).text);
          return query(config, ...rest);
        };
        const book = (k: string) =>
          one.tx(
            async (q) => {
              await q.lock(`rc:${k}`);
              if (await q.get('SELECT 1 AS x FROM rc_trips WHERE k = ?', [k])) return false;
              return (
                (await q.getLast<{ k: string }>('INSERT INTO rc_trips VALUES (?, ?) RETURNING k', [k, 1]))?.k === k
              );
            },
            { isolation: 'read committed' },
          );
        // The first on the connection prepares its statements; then a booking and a repeat, two messages each.
        expect(await book('a')).toBe(true);
        sent.length = 0;
        expect(await book("it's")).toBe(true);
        expect(await book("it's")).toBe(false);
        expect(sent).toHaveLength(4);
        expect(sent[0]).toMatch(
          /^BEGIN ISOLATION LEVEL READ COMMITTED; SELECT pg_advisory_xact_lock\(hashtext\('rc:it''s'\)\); EXECUTE axle_\d+\('it''s'\)$/,
        );
        expect(sent[1]).toMatch(/^EXECUTE axle_\d+\('it''s', 1\); COMMIT$/);
        expect(sent[3]).toBe('COMMIT');
        expect(await one.all('SELECT k FROM rc_trips ORDER BY k')).toEqual([{ k: 'a' }, { k: "it's" }]);
      } finally {
        await one.close();
      }
    },
  );

  it('serialises concurrent transactions so none interleave', async () => {
    await t.exec('CREATE TABLE c (n INTEGER)');
    await t.run('INSERT INTO c VALUES (0)');
    await Promise.all(
      Array.from({ length: 25 }, () =>
        t.tx(async (q) => {
          const row = await q.get<{ n: number }>('SELECT n FROM c');
          await q.run('UPDATE c SET n = ?', [row!.n + 1]);
        }),
      ),
    );
    expect(await t.get('SELECT n FROM c')).toEqual({ n: 25 });
  });

  it('reads only committed data while a transaction is open', async () => {
    await t.exec('CREATE TABLE r (v INTEGER)');
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const pending = t.tx(async (q) => {
      await q.run('INSERT INTO r VALUES (7)');
      await gate;
    });
    await new Promise((r) => setTimeout(r, 20));
    expect(await t.all('SELECT v FROM r')).toEqual([]);
    release();
    await pending;
    expect(await t.all('SELECT v FROM r')).toEqual([{ v: 7 }]);
  });

  it("read committed: one row's conditional writers wait for each other, and a lock guards a read-then-write", async () => {
    await t.exec('CREATE TABLE rc_credit (n INTEGER NOT NULL)');
    await t.exec('CREATE TABLE rc_taken (k TEXT NOT NULL)');
    await t.run('INSERT INTO rc_credit VALUES (10)');
    // 30 writers take one credit each from 10, and 30 more record key "a" once, all at once.
    const take = () =>
      t.tx(async (q) => (await q.run('UPDATE rc_credit SET n = n - 1 WHERE n > 0')).changes, {
        isolation: 'read committed',
      });
    const once = () =>
      t.tx(
        async (q) => {
          await q.lock('rc:a');
          if (await q.get("SELECT 1 AS x FROM rc_taken WHERE k = 'a'")) return 0;
          await q.run("INSERT INTO rc_taken VALUES ('a')");
          return 1;
        },
        { isolation: 'read committed' },
      );
    const [took, recorded] = await Promise.all([
      Promise.all(Array.from({ length: 30 }, take)),
      Promise.all(Array.from({ length: 30 }, once)),
    ]);
    expect(took.filter((c) => c === 1)).toHaveLength(10);
    expect(await t.get('SELECT n FROM rc_credit')).toEqual({ n: 0 });
    expect(recorded.filter((c) => c === 1)).toHaveLength(1);
    expect(await t.all('SELECT k FROM rc_taken')).toEqual([{ k: 'a' }]);
  });

  it('a statement whose table changed shape since it was last run runs again, on the pool and in a transaction', async () => {
    await t.exec('CREATE TABLE shape (a INTEGER)');
    await t.run('INSERT INTO shape VALUES (1)');
    const read = (q: Queryable) => q.all('SELECT * FROM shape');
    expect(await read(t)).toEqual([{ a: 1 }]);
    expect(await t.tx(read)).toEqual([{ a: 1 }]);
    // Another instance migrates: the statement each connection prepared now answers other columns.
    const other = await store.another();
    await other.db.exec('ALTER TABLE shape ADD COLUMN b INTEGER NOT NULL DEFAULT 2');
    await other.db.close();
    for (let i = 0; i < 3; i++) {
      expect(await read(t)).toEqual([{ a: 1, b: 2 }]);
      expect(await t.tx(read)).toEqual([{ a: 1, b: 2 }]);
    }
  });
});

describe.skipIf(BACKEND !== 'postgres')('PostgreSQL migration 260 (accents folded)', () => {
  it('re-indexes the approved learnings and has the catalog imported again, so what was indexed before folds too', async () => {
    const pg = await PostgresDatabase.open((await backendEnv('empty')).AXLE_DATABASE_URL!);
    try {
      const migrations = readMigrations(POSTGRES_MIGRATIONS_DIR);
      // Every migration but 260, which comes last: the skills store used before it writes the later ones' tables.
      await migratePostgres(
        pg,
        migrations.filter((m) => m.version !== 260),
      );
      await learningsStore.insert(pg, newLearning({ id: 'lrn_old', title: 'Pokémon cards graded by mail', seq: 1 }));
      const skills = createPostgresSkillsStore(pg);
      const [base] = loadCatalog(SMALL_CATALOG);
      const catalog = [{ skill: { ...base!, id: 'tcg', name: 'Pokémon cards' }, slug: 'pokemon-cards' }];
      await skills.replaceCatalog(catalog, 'fp');

      expect(await migratePostgres(pg, migrations)).toEqual([260]);
      const learnings = createPostgresLearningsSearch(pg, Date.now);
      expect((await learnings.lexical('pokemon', {}, 10)).map((h) => h.id)).toEqual(['lrn_old']);
      expect(await pg.all("SELECT doc FROM learning_terms WHERE lexeme = 'pokemon'")).toEqual([{ doc: 'lrn_old' }]);
      // The skills' index is written by the catalog import: its fingerprint is forgotten, so the next start imports it.
      expect(await skills.catalogFingerprint()).toBeUndefined();
      expect(await skills.replaceCatalog(catalog, 'fp')).toBe(true);
      expect((await skills.lexicalSearch('pokemon', {}, 10)).map((h) => h.id)).toEqual(['tcg']);
    } finally {
      await pg.close();
    }
  });
});
