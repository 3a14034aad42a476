import pg from 'pg';
import { ERROR_CODES } from '@axle/sdk';
import { DomainError } from '../../domain/errors.js';
import type { Params, Queryable, RunResult, Transactor, TxOptions } from '../queryable.js';

/** int8 (COUNT, BIGINT columns) and numeric (SUM of BIGINT) as numbers, as SQLite answers them: amounts stay far below 2^53. */
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === pg.types.builtins.INT8 || oid === pg.types.builtins.NUMERIC) return Number;
    return pg.types.getTypeParser(oid, format);
  },
};

/** SQLSTATEs after which the whole transaction is run again: serialization failure, deadlock (and a stale plan). */
const RETRYABLE = new Set(['40001', '40P01']);
const MAX_ATTEMPTS = 30;

const translated = new Map<string, string>();
/** `?` placeholders -> `$1…$n`, outside quoted strings and identifiers (the shared SQL is written with `?`). */
export function toPositional(sql: string): string {
  const cached = translated.get(sql);
  if (cached !== undefined) return cached;
  let out = '';
  let n = 0;
  let quote: string | null = null;
  for (const ch of sql) {
    if (quote) {
      if (ch === quote) quote = null;
    } else if (ch === "'" || ch === '"') quote = ch;
    else if (ch === '?') {
      out += `$${++n}`;
      continue;
    }
    out += ch;
  }
  if (translated.size < 2000) translated.set(sql, out);
  return out;
}

/**
 * Statements are prepared once per connection under a name: parsing and planning cost the server more than
 * running most of them. Past PREPARED distinct texts the rest go unnamed (parsed each time).
 */
const PREPARED = 500;
const names = new Map<string, string>();
let named = 0;
function nameOf(sql: string): string | undefined {
  const name = names.get(sql);
  if (name !== undefined || names.size >= PREPARED) return name;
  const fresh = `axle_${named++}`;
  names.set(sql, fresh);
  return fresh;
}

/** A value as an SQL literal (as bind() gives it), or undefined for a kind that has none here. */
function literalOf(conn: pg.PoolClient, v: unknown): string | undefined {
  if (v === null) return 'NULL';
  if (typeof v === 'number' && Number.isSafeInteger(v)) return String(v);
  if (typeof v === 'string') return conn.escapeLiteral(v);
  return undefined;
}

/** Per connection, the statement names it has prepared (seen by a transaction on it). */
const preparedOn = new WeakMap<pg.PoolClient, Set<string>>();

/** A prepared statement whose tables changed shape under it (another instance migrated): prepared again. */
const stalePlan = (err: unknown) =>
  (err as { code?: string }).code === '0A000' && /cached plan must not change result type/.test(String(err));

/** SQLite binds booleans as 0/1 and undefined as NULL; the shared schema keeps flags as integers. */
const bind = (params: Params = []) =>
  params.map((p) => (p === true ? 1 : p === false ? 0 : p === undefined ? null : p)) as unknown[];

/**
 * No answer on the connection within the query timeout (the network between here and the database went silent):
 * whatever is sent next on it waits behind the unanswered statement, so it is dropped, not rolled back.
 */
const lost = (err: unknown): boolean => {
  const e = err as { message?: string; cause?: { message?: string } };
  return e.message === 'Query read timeout' || e.cause?.message === 'Query read timeout';
};

/** Connection-level failures: the database is unreachable or the pool had no connection in time. */
function unavailable(err: unknown): never {
  const e = err as { code?: string; message?: string };
  const connection =
    // 57014: cancelled by the statement timeout; 55P03: a lock not granted in time; 25P03: ended by the idle
    // transaction timeout; 3D000: the database no longer exists (dropped or renamed); 28: the credentials no
    // longer work; 53: the server is out of disk, memory or connections.
    /^(08|28|53|57P0|57014|55P03|25P03|3D000)/.test(e.code ?? '') ||
    ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE'].includes(e.code ?? '') ||
    lost(err) ||
    /timeout exceeded when trying to connect|Connection terminated|Client was closed|Client has encountered a connection error/.test(
      e.message ?? '',
    );
  // The driver's error stays on `cause` for the log; the client sees the code and message only.
  if (connection)
    throw Object.assign(
      new DomainError(ERROR_CODES.DATABASE_UNAVAILABLE, 'The database is unavailable; try again shortly'),
      { cause: err },
    );
  throw err;
}

/** Statements on the pool (each its own transaction) or on one connection. */
class Client implements Queryable {
  readonly dialect = 'postgres' as const;
  constructor(protected readonly raw: pg.PoolClient | pg.Pool) {}
  /** In a transaction, an error ends the attempt; on the pool a stale plan is prepared again at once. */
  protected readonly inTransaction: boolean = false;
  protected async query(sql: string, params?: Params) {
    const send = () => this.raw.query({ text: toPositional(sql), values: bind(params), name: nameOf(sql) });
    try {
      return await send();
    } catch (err) {
      if (!stalePlan(err)) return unavailable(err);
      names.delete(sql);
      if (this.inTransaction) throw err;
      return send().catch(unavailable);
    }
  }
  async run(sql: string, params?: Params): Promise<RunResult> {
    const r = await this.query(sql, params);
    return { changes: r.rowCount ?? 0 };
  }
  async get<T>(sql: string, params?: Params): Promise<T | undefined> {
    return (await this.query(sql, params)).rows[0] as T | undefined;
  }
  async all<T>(sql: string, params?: Params): Promise<T[]> {
    return (await this.query(sql, params)).rows as T[];
  }
  async exec(sql: string): Promise<void> {
    await this.raw.query(sql).catch(unavailable);
  }
  /** Outside a transaction a statement commits on its own. */
  getLast<T>(sql: string, params?: Params): Promise<T | undefined> {
    return this.get<T>(sql, params);
  }
  /** Outside a transaction there is nothing to serialise. */
  async lock(_key: string): Promise<void> {}
}

const conflict = () => Object.assign(new Error('serialise under a lock taken first'), { code: '40001' });

/**
 * One attempt at a serializable transaction. BEGIN is sent with the first statement, so a lock asked for
 * before any is taken first (session-level, before the snapshot exists): the transaction then sees what
 * the previous holder committed. A lock asked for later would come after the snapshot: the attempt stops
 * there and the next one takes that lock first.
 */
class Attempt extends Client {
  protected override readonly inTransaction = true;
  started = false;
  /** Session locks this attempt took before BEGIN; released after COMMIT or ROLLBACK. */
  readonly taken: string[] = [];
  /** Locks asked for after the snapshot: the next attempt takes them first. */
  readonly wanted = new Set<string>();
  constructor(
    protected readonly conn: pg.PoolClient,
    private readonly held: ReadonlySet<string>,
  ) {
    super(conn);
  }
  protected readonly beginSql: string = 'BEGIN ISOLATION LEVEL SERIALIZABLE';
  /** Statements asked for but not sent yet (BEGIN and the locks taken first): they go with the next one. */
  protected unsent: string | undefined;
  /** Whether a transaction is open on the server: COMMIT or ROLLBACK ends it. */
  get open(): boolean {
    return this.started && !this.committed && this.unsent === undefined;
  }
  /** What must precede the next statement, now taken: BEGIN when nothing ran yet, and what is unsent. */
  protected prelude(): string {
    if (this.unsent !== undefined) {
      const unsent = this.unsent;
      this.unsent = undefined;
      return unsent;
    }
    if (this.started) return '';
    this.started = true;
    return this.beginSql;
  }
  protected async begin(): Promise<void> {
    const prelude = this.prelude();
    if (prelude) await this.conn.query(prelude).catch(unavailable);
  }
  /** Set once getLast committed: nothing more runs in this attempt. */
  committed = false;
  protected override async query(sql: string, params?: Params) {
    if (this.committed) throw new Error('the transaction has committed');
    await this.begin();
    const result = await super.query(sql, params);
    const name = names.get(sql);
    if (name !== undefined) {
      const prepared = preparedOn.get(this.conn) ?? new Set<string>();
      preparedOn.set(this.conn, prepared.add(name));
    }
    return result;
  }
  /**
   * `EXECUTE name(values)` for a statement this connection has prepared, its values written as literals (the
   * simple protocol, which can carry several statements in one message, takes no parameters); undefined when
   * it is not prepared here or a value has no literal.
   */
  protected executeText(sql: string, params?: Params): string | undefined {
    const name = names.get(sql);
    if (name === undefined || !preparedOn.get(this.conn)?.has(name)) return undefined;
    const literals = bind(params).map((v) => literalOf(this.conn, v));
    if (!literals.every((l) => l !== undefined)) return undefined;
    return literals.length === 0 ? `EXECUTE ${name}` : `EXECUTE ${name}(${literals.join(', ')})`;
  }
  /** A message that failed: a stale prepared statement is prepared again by the next attempt. */
  protected failed(sql: string) {
    return (err: unknown): never => {
      if (stalePlan(err)) {
        names.delete(sql);
        throw err;
      }
      return unavailable(err);
    };
  }
  /**
   * The statement and COMMIT (with BEGIN if nothing ran yet) as one simple-protocol message. The statement is
   * prepared on the connection (the first time, it runs on its own and COMMIT follows) and runs as
   * `EXECUTE name(values)`, so it is not parsed and planned again each time; past the prepared names, its
   * values are written into it as literals.
   */
  override async getLast<T>(sql: string, params?: Params): Promise<T | undefined> {
    if (this.committed) throw new Error('the transaction has committed');
    if (sql.includes('$')) throw new Error('getLast: a statement with a $ of its own cannot take literals');
    const name = nameOf(sql);
    if (name !== undefined && !preparedOn.get(this.conn)?.has(name)) {
      const row = await this.get<T>(sql, params);
      await this.conn.query('COMMIT').catch(unavailable);
      this.committed = true;
      return row;
    }
    const values = bind(params);
    const literal = (v: unknown): string => {
      const l = literalOf(this.conn, v);
      if (l === undefined) throw new Error(`getLast: no literal for ${typeof v}`);
      return l;
    };
    const text =
      this.executeText(sql, params) ??
      toPositional(sql).replace(/\$(\d+)/g, (_, n: string) => literal(values[Number(n) - 1]));
    const prelude = this.prelude();
    const results = (await this.conn
      .query(`${prelude ? `${prelude}; ` : ''}${text}; COMMIT`)
      .catch(this.failed(sql))) as unknown as pg.QueryResult[];
    this.committed = true;
    return results[results.length - 2]!.rows[0] as T | undefined;
  }
  override async exec(sql: string): Promise<void> {
    await this.begin();
    await super.exec(sql);
  }
  override async lock(key: string): Promise<void> {
    if (this.held.has(key) || this.taken.includes(key)) return;
    if (this.started) {
      this.wanted.add(key);
      throw conflict();
    }
    await this.conn.query('SELECT pg_advisory_lock(hashtext($1))', [key]).catch(unavailable);
    this.taken.push(key);
  }
}

/**
 * One attempt at a read-committed transaction: every statement reads what was committed before it, so a
 * lock is simply taken where it is asked for, held until COMMIT or ROLLBACK. Locks asked for first go with
 * BEGIN in the next statement's message (as EXECUTE when that statement is prepared on the connection).
 */
class ReadCommittedAttempt extends Attempt {
  protected override readonly beginSql = 'BEGIN ISOLATION LEVEL READ COMMITTED';
  override async lock(key: string): Promise<void> {
    const sql = `SELECT pg_advisory_xact_lock(hashtext(${this.conn.escapeLiteral(key)}))`;
    if (!this.started) {
      this.started = true;
      this.unsent = `${this.beginSql}; ${sql}`;
    } else if (this.unsent !== undefined) this.unsent += `; ${sql}`;
    else await this.conn.query(sql).catch(unavailable);
  }
  protected override async query(sql: string, params?: Params) {
    const text = this.unsent !== undefined && !this.committed ? this.executeText(sql, params) : undefined;
    if (text === undefined) return super.query(sql, params);
    const results = (await this.conn
      .query(`${this.prelude()}; ${text}`)
      .catch(this.failed(sql))) as unknown as pg.QueryResult[];
    return results[results.length - 1]!;
  }
}

export interface PostgresOptions {
  /** Connections this instance holds at most. */
  poolSize?: number;
  /** Shown in pg_stat_activity. */
  applicationName?: string;
  /**
   * Longest a statement may run or wait for a lock, and a transaction sit idle (twice that a session, three times
   * that a statement go unanswered); unset: no bound.
   */
  statementTimeoutMs?: number;
}

/**
 * A health read (or its connecting) unanswered this long is given up with its connection, so the next one, on a new
 * connection, finds a database back from a partition at once (the probe calls it unavailable after a second anyway).
 */
const HEALTH_READ_TIMEOUT_MS = 2000;

/** A pool of `max` connections to `url` with the options of `opts`; its connecting and statements given up after `queryTimeoutMs`. */
function newPool(url: string, opts: PostgresOptions, max: number, queryTimeoutMs?: number): pg.Pool {
  const statementTimeoutMs = opts.statementTimeoutMs;
  const pool = new pg.Pool({
    connectionString: url,
    max,
    types,
    application_name: opts.applicationName ?? 'axle-server',
    // Requests queue for a connection under load; past this they answer 503 database_unavailable.
    connectionTimeoutMillis: 30_000,
    // Past it PostgreSQL cancels the statement (57014): a request never waits longer on a lock held elsewhere.
    // A transaction whose client stops speaking mid-way (an instance cut off from the database) is ended by
    // PostgreSQL after as long, releasing its locks, rather than at TCP keepalive, hours later; and a
    // statement sent there that has no answer after a few statements' time (a message may carry a lock or
    // two, BEGIN and COMMIT with it) fails here instead of waiting forever.
    ...(statementTimeoutMs && {
      statement_timeout: statementTimeoutMs,
      idle_in_transaction_session_timeout: statementTimeoutMs,
      query_timeout: 3 * statementTimeoutMs,
      // A session lock is taken before its transaction begins and released after it ends: a session cut off
      // between the two (no transaction open to time out) would keep it, for every instance, until TCP
      // keepalive. PostgreSQL ends a session idle that long; pooled connections are idle only in the pool,
      // which closes them sooner, so none is ended as it is handed out. The LISTEN connection is not pooled.
      onConnect: (client: pg.PoolClient) => client.query(`SET idle_session_timeout = ${2 * statementTimeoutMs}`),
      idleTimeoutMillis: Math.min(10_000, statementTimeoutMs),
    }),
    ...(queryTimeoutMs && { query_timeout: queryTimeoutMs, connectionTimeoutMillis: queryTimeoutMs }),
  });
  // An idle client losing its connection (server restart) must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  // Nor one in use: the pool listens for errors only on idle connections, so a connection whose backend is
  // terminated while a transaction waits between statements, or right as it is handed out, would be an
  // unhandled 'error' that ends the process. Its next statement fails (database_unavailable) and the pool
  // drops it when it is released.
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

/**
 * PostgreSQL through a pool. Transactions run SERIALIZABLE unless asked otherwise, so code written for
 * SQLite's single writer (read, check, write) stays correct across instances: a conflicting transaction
 * is rolled back by the server and run again here.
 */
export class PostgresDatabase implements Transactor {
  readonly dialect = 'postgres' as const;
  private readonly root: Client;
  readonly health: Queryable;
  private constructor(
    readonly pool: pg.Pool,
    private readonly healthPool: pg.Pool,
  ) {
    this.root = new Client(pool);
    this.health = new Client(healthPool);
  }

  static async open(url: string, opts: PostgresOptions = {}): Promise<PostgresDatabase> {
    // Health reads get a connection of their own: one queued behind slow requests for a pooled connection would
    // call a database that answers unavailable.
    const db = new PostgresDatabase(
      newPool(url, opts, opts.poolSize ?? 10),
      newPool(url, opts, 1, HEALTH_READ_TIMEOUT_MS),
    );
    await db.get('SELECT 1');
    return db;
  }

  run(sql: string, params?: Params): Promise<RunResult> {
    return this.root.run(sql, params);
  }
  get<T = Record<string, unknown>>(sql: string, params?: Params): Promise<T | undefined> {
    return this.root.get<T>(sql, params);
  }
  all<T = Record<string, unknown>>(sql: string, params?: Params): Promise<T[]> {
    return this.root.all<T>(sql, params);
  }
  exec(sql: string): Promise<void> {
    return this.root.exec(sql);
  }
  lock(key: string): Promise<void> {
    return this.root.lock(key);
  }
  getLast<T = Record<string, unknown>>(sql: string, params?: Params): Promise<T | undefined> {
    return this.root.getLast<T>(sql, params);
  }

  async tx<T>(fn: (q: Queryable) => Promise<T>, opts: TxOptions = {}): Promise<T> {
    const readCommitted = opts.isolation === 'read committed';
    const client = await this.pool.connect().catch(unavailable);
    let broken: Error | undefined;
    const unlock = async (key: string) => {
      await client.query('SELECT pg_advisory_unlock(hashtext($1))', [key]).catch((e: Error) => (broken = e));
    };
    let first: string[] = [];
    try {
      for (let attempt = 1; ; attempt++) {
        const held: string[] = [];
        const q = readCommitted ? new ReadCommittedAttempt(client, new Set()) : new Attempt(client, new Set(first));
        try {
          for (const key of first) {
            await client.query('SELECT pg_advisory_lock(hashtext($1))', [key]).catch(unavailable);
            held.push(key);
          }
          const result = await fn(q);
          if (q.open) await client.query('COMMIT');
          return result;
        } catch (err) {
          if (lost(err)) broken = err as Error;
          else if (q.open) await client.query('ROLLBACK').catch((e: Error) => (broken = e));
          const code = (err as { code?: string }).code;
          // The connection is gone (its rollback could not be sent, or it went silent): nothing can be run again
          // on it. Nothing was committed, unless the silence fell after a COMMIT reached the server.
          if (broken && !(err instanceof DomainError))
            throw Object.assign(
              new DomainError(ERROR_CODES.DATABASE_UNAVAILABLE, 'The database is unavailable; try again shortly'),
              { cause: broken },
            );
          if (broken || !(RETRYABLE.has(code ?? '') || stalePlan(err))) throw err;
          // Still colliding after every attempt: nothing was written, and the caller may send it again.
          if (attempt >= MAX_ATTEMPTS)
            throw new DomainError(ERROR_CODES.DATABASE_UNAVAILABLE, 'The database is busy; try again shortly', {}, 1);
          first = [...new Set([...first, ...q.taken, ...q.wanted])].sort();
          // A conflict on a lock retries at once; others back off with full jitter, growing, so transactions
          // that collided spread out instead of colliding again.
          if (q.wanted.size === 0)
            await new Promise((r) => setTimeout(r, Math.random() * Math.min(200, 5 * 2 ** attempt)));
        } finally {
          // A connection given up on is closed, and its session locks with it.
          if (!broken) for (const key of [...held, ...q.taken]) await unlock(key);
        }
      }
    } finally {
      client.release(broken);
    }
  }

  /** A connection of its own, for LISTEN and session-level locks; the caller releases it. */
  connect(): Promise<pg.PoolClient> {
    return this.pool.connect();
  }

  async close(): Promise<void> {
    await Promise.all([this.pool.end(), this.healthPool.end()]);
  }
}
