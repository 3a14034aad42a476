import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sqlite3 from 'sqlite3';
import { ERROR_CODES } from '@axle/sdk';
import { DomainError } from '../domain/errors.js';

import type { Params, Queryable, RunResult, Transactor } from './queryable.js';

export type { Params, Queryable, RunResult, Transactor };

/** Prepared statements kept per reader connection; SQL beyond this many distinct texts is prepared per call. */
const STATEMENT_CACHE = 100;

/**
 * The database holds emails and client IPs: its file is created readable by the owner only, and
 * one made more open is narrowed. SQLite gives the WAL and shared-memory files the database file's
 * mode when it creates them; existing ones are narrowed too.
 */
function ownerOnly(file: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  fs.closeSync(fs.openSync(file, 'a', 0o600));
  for (const f of [file, `${file}-wal`, `${file}-shm`]) {
    try {
      fs.chmodSync(f, 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
}

/**
 * SQLite result codes that are the machine's, not the statement's: the disk or the file system is full or
 * failing, the file is read-only or gone, or another process held the database past the busy timeout. The
 * statement (and its transaction) did not happen; the request answers 503 database_unavailable rather than
 * a 500, and a constraint or syntax error stays what it is.
 */
const MACHINE_FAILURES = new Set([
  'SQLITE_FULL',
  'SQLITE_IOERR',
  'SQLITE_READONLY',
  'SQLITE_CANTOPEN',
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
  'SQLITE_NOMEM',
  'SQLITE_PROTOCOL',
]);

function settled<T>(resolve: (v: T) => void, reject: (e: unknown) => void) {
  return (err: Error | null, value: T) => (err ? reject(unavailable(err)) : resolve(value));
}

function unavailable(err: Error): Error {
  const code = (err as { code?: string }).code ?? '';
  if (!MACHINE_FAILURES.has(code)) return err;
  // The SQLite error stays on `cause` for the log; the client sees the code and message only.
  return Object.assign(
    new DomainError(ERROR_CODES.DATABASE_UNAVAILABLE, 'The database cannot take this request now; nothing was written'),
    { cause: err },
  );
}

class Connection implements Queryable {
  readonly dialect = 'sqlite' as const;
  /** Statements issued and not yet answered; the reader pool picks the least busy connection. */
  inFlight = 0;
  /** SQL -> prepared statement, reused by `cachedAll`/`cachedGet` (preparing an FTS query is not free). */
  private readonly statements = new Map<string, Promise<sqlite3.Statement>>();
  constructor(readonly raw: sqlite3.Database) {}

  private prepared(sql: string): Promise<sqlite3.Statement> | undefined {
    let st = this.statements.get(sql);
    if (!st && this.statements.size < STATEMENT_CACHE) {
      st = new Promise((resolve, reject) => {
        const statement = this.raw.prepare(sql, (err: Error | null) =>
          err ? reject(unavailable(err)) : resolve(statement),
        );
      });
      this.statements.set(sql, st);
      st.catch(() => this.statements.delete(sql));
    }
    return st;
  }

  /** `all` through a prepared statement kept for the next call with the same SQL. */
  async cachedAll<T>(sql: string, params: Params = []): Promise<T[]> {
    const st = this.prepared(sql);
    if (!st) return this.all<T>(sql, params);
    const statement = await st;
    return new Promise((resolve, reject) => {
      statement.all(params as never, settled(resolve, reject));
    });
  }
  /** `get` through a prepared statement kept for the next call with the same SQL. */
  async cachedGet<T>(sql: string, params: Params = []): Promise<T | undefined> {
    const st = this.prepared(sql);
    if (!st) return this.get<T>(sql, params);
    const statement = await st;
    return new Promise((resolve, reject) => {
      // A statement left mid-result by `get` would hold its read snapshot: reset it for the next caller.
      statement.get(params as never, (err: Error | null, row: T) =>
        statement.reset(() => settled(resolve, reject)(err, row)),
      );
    });
  }

  /** Counts `p` as in flight until it settles. */
  track<T>(p: Promise<T>): Promise<T> {
    this.inFlight++;
    return p.finally(() => this.inFlight--);
  }

  run(sql: string, params: Params = []): Promise<RunResult> {
    return new Promise((resolve, reject) => {
      this.raw.run(sql, params as never, function (this: sqlite3.RunResult, err: Error | null) {
        if (err) reject(unavailable(err));
        else resolve({ changes: this.changes });
      });
    });
  }
  get<T>(sql: string, params: Params = []): Promise<T | undefined> {
    return new Promise((resolve, reject) => {
      this.raw.get(sql, params as never, settled(resolve, reject));
    });
  }
  all<T>(sql: string, params: Params = []): Promise<T[]> {
    return new Promise((resolve, reject) => {
      this.raw.all(sql, params as never, settled(resolve, reject));
    });
  }
  exec(sql: string): Promise<void> {
    return new Promise((resolve, reject) => this.raw.exec(sql, (err) => (err ? reject(unavailable(err)) : resolve())));
  }
  /** The transaction commits right after (one writer: nothing waits on its locks meanwhile). */
  getLast<T>(sql: string, params?: Params): Promise<T | undefined> {
    return this.get<T>(sql, params);
  }
  /** One writer: a write transaction is already serialised with every other. */
  lock(_key: string): Promise<void> {
    return Promise.resolve();
  }
  async close(): Promise<void> {
    const statements = await Promise.allSettled(this.statements.values());
    this.statements.clear();
    for (const s of statements)
      if (s.status === 'fulfilled') await new Promise<void>((resolve) => s.value.finalize(() => resolve()));
    await new Promise<void>((resolve, reject) => this.raw.close((err) => (err ? reject(err) : resolve())));
  }
}

function open(file: string, mode: number): Promise<Connection> {
  return new Promise((resolve, reject) => {
    const raw = new sqlite3.Database(file, mode, (err) => (err ? reject(err) : resolve(new Connection(raw))));
  });
}

const BUSY_TIMEOUT_MS = 5000;
/**
 * Read connections. Statements on one connection run one at a time, so with a single reader a
 * trivial count (GET /health) queues behind slow FTS queries; separate connections run on separate
 * libuv threads (4 by default, hence no more than that). No more than the cores either: more readers
 * than cores starve the event loop under fused search.
 */
const READERS = Math.min(4, Math.max(2, os.availableParallelism()));

/**
 * SQLite in WAL mode: one writer, serialised by a queue so a transaction never interleaves with
 * another request's statements, and a small pool of readers that see only committed data. Reads
 * never wait for writes.
 */
export class Database implements Transactor {
  readonly dialect = 'sqlite' as const;
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly writer: Connection,
    private readonly readers: Connection[],
    readonly file: string,
  ) {}

  static async open(file: string): Promise<Database> {
    if (file !== ':memory:') ownerOnly(file);
    const writer = await open(file, sqlite3.OPEN_READWRITE | sqlite3.OPEN_CREATE);
    writer.raw.configure('busyTimeout', BUSY_TIMEOUT_MS);
    await writer.exec(
      `PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS};`,
    );
    // An in-memory database is private to its connection, so it reads through the writer.
    if (file === ':memory:') return new Database(writer, [writer], file);
    const readers: Connection[] = [];
    for (let i = 0; i < READERS; i++) {
      const reader = await open(file, sqlite3.OPEN_READONLY);
      reader.raw.configure('busyTimeout', BUSY_TIMEOUT_MS);
      await reader.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS};`);
      readers.push(reader);
    }
    return new Database(writer, readers, file);
  }

  /** Reads never wait for writes, so health checks read like any request. */
  get health(): Queryable {
    return this;
  }

  get<T = Record<string, unknown>>(sql: string, params?: Params): Promise<T | undefined> {
    const reader = this.leastBusyReader();
    return reader.track(reader.cachedGet<T>(sql, params));
  }
  all<T = Record<string, unknown>>(sql: string, params?: Params): Promise<T[]> {
    const reader = this.leastBusyReader();
    return reader.track(reader.cachedAll<T>(sql, params));
  }

  private leastBusyReader(): Connection {
    let best = this.readers[0]!;
    for (const r of this.readers) if (r.inFlight < best.inFlight) best = r;
    return best;
  }
  /** A single write statement outside an explicit transaction (still serialised). */
  run(sql: string, params?: Params): Promise<RunResult> {
    return this.exclusive(() => this.writer.run(sql, params));
  }
  exec(sql: string): Promise<void> {
    return this.exclusive(() => this.writer.exec(sql));
  }
  lock(_key: string): Promise<void> {
    return Promise.resolve();
  }
  getLast<T = Record<string, unknown>>(sql: string, params?: Params): Promise<T | undefined> {
    return this.exclusive(() => this.writer.get<T>(sql, params));
  }

  /**
   * Runs `fn`'s reads in one read transaction on a connection of its own: they all see the file as it was at
   * the first of them, whatever other connections or processes commit meanwhile (WAL keeps that snapshot), and
   * no writer waits for it.
   */
  async snapshot<T>(fn: (q: Queryable) => Promise<T>): Promise<T> {
    if (this.file === ':memory:') return this.exclusive(() => fn(this.writer));
    const reader = await open(this.file, sqlite3.OPEN_READONLY);
    try {
      reader.raw.configure('busyTimeout', BUSY_TIMEOUT_MS);
      await reader.exec('BEGIN');
      try {
        return await fn(reader);
      } finally {
        await reader.exec('COMMIT').catch(() => undefined);
      }
    } finally {
      await reader.close();
    }
  }

  /** A number that changes whenever another connection or process commits to the file (PRAGMA data_version). */
  async dataVersion(): Promise<number> {
    const row = await this.exclusive(() => this.writer.get<{ data_version: number }>('PRAGMA data_version'));
    return row!.data_version;
  }

  /** Runs `fn` in BEGIN IMMEDIATE … COMMIT; any throw rolls back and is rethrown. */
  tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T> {
    return this.exclusive(async () => {
      await this.writer.exec('BEGIN IMMEDIATE');
      try {
        const result = await fn(this.writer);
        await this.writer.exec('COMMIT');
        return result;
      } catch (err) {
        await this.writer.exec('ROLLBACK').catch(() => undefined);
        throw err;
      }
    });
  }

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.queue.then(fn, fn);
    this.queue = next.catch(() => undefined);
    return next;
  }

  async close(): Promise<void> {
    await this.queue;
    for (const r of this.readers) if (r !== this.writer) await r.close();
    await this.writer.close();
  }
}
