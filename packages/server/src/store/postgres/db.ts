import pg from 'pg';
import type { Params, Queryable, RunResult, Transactor } from '../queryable.js';

/** int8 (COUNT, BIGINT columns) and numeric (SUM of BIGINT) as numbers, as SQLite answers them: amounts stay far below 2^53. */
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === pg.types.builtins.INT8 || oid === pg.types.builtins.NUMERIC) return Number;
    return pg.types.getTypeParser(oid, format);
  },
};

/** SQLSTATEs after which the whole transaction is run again: serialization failure, deadlock. */
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

/** SQLite binds booleans as 0/1 and undefined as NULL; the shared schema keeps flags as integers. */
const bind = (params: Params = []) =>
  params.map((p) => (p === true ? 1 : p === false ? 0 : p === undefined ? null : p)) as unknown[];

const lockSql = 'SELECT pg_advisory_xact_lock(hashtext($1))';

class Client implements Queryable {
  /** Keys this transaction locked, taken before BEGIN when it runs again (so its snapshot starts after the lock). */
  readonly locked = new Set<string>();
  constructor(private readonly raw: pg.PoolClient | pg.Pool) {}
  async run(sql: string, params?: Params): Promise<RunResult> {
    const r = await this.raw.query(toPositional(sql), bind(params));
    return { changes: r.rowCount ?? 0 };
  }
  async get<T>(sql: string, params?: Params): Promise<T | undefined> {
    const r = await this.raw.query(toPositional(sql), bind(params));
    return r.rows[0] as T | undefined;
  }
  async all<T>(sql: string, params?: Params): Promise<T[]> {
    const r = await this.raw.query(toPositional(sql), bind(params));
    return r.rows as T[];
  }
  async exec(sql: string): Promise<void> {
    await this.raw.query(sql);
  }
  async lock(key: string): Promise<void> {
    this.locked.add(key);
    await this.raw.query(lockSql, [key]);
  }
}

export interface PostgresOptions {
  /** Connections this instance holds at most. */
  poolSize?: number;
  /** Shown in pg_stat_activity. */
  applicationName?: string;
}

/**
 * PostgreSQL through a pool. Transactions run SERIALIZABLE, so code written for SQLite's single
 * writer (read, check, write) stays correct across instances: a conflicting transaction is rolled
 * back by the server and run again here.
 */
export class PostgresDatabase implements Transactor {
  private readonly root: Client;
  private constructor(readonly pool: pg.Pool) {
    this.root = new Client(pool);
  }

  static async open(url: string, opts: PostgresOptions = {}): Promise<PostgresDatabase> {
    const pool = new pg.Pool({
      connectionString: url,
      max: opts.poolSize ?? 10,
      types,
      application_name: opts.applicationName ?? 'axle-server',
      connectionTimeoutMillis: 10_000,
    });
    // An idle client losing its connection (server restart) must not crash the process; the pool replaces it.
    pool.on('error', () => undefined);
    const db = new PostgresDatabase(pool);
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
  /** Outside a transaction there is nothing to serialise. */
  lock(_key: string): Promise<void> {
    return Promise.resolve();
  }

  async tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    let broken: Error | undefined;
    let preLocked: string[] = [];
    try {
      for (let attempt = 1; ; attempt++) {
        const held: string[] = [];
        const q = new Client(client);
        try {
          for (const key of preLocked) {
            await client.query('SELECT pg_advisory_lock(hashtext($1))', [key]);
            held.push(key);
          }
          await client.query('BEGIN ISOLATION LEVEL SERIALIZABLE');
          const result = await fn(q);
          await client.query('COMMIT');
          return result;
        } catch (err) {
          await client.query('ROLLBACK').catch((e: Error) => (broken = e));
          const code = (err as { code?: string }).code;
          if (broken || !code || !RETRYABLE.has(code) || attempt >= MAX_ATTEMPTS) throw err;
          preLocked = [...new Set([...preLocked, ...q.locked])].sort();
          await new Promise((r) => setTimeout(r, Math.random() * Math.min(50, 2 * attempt)));
        } finally {
          for (const key of held)
            await client.query('SELECT pg_advisory_unlock(hashtext($1))', [key]).catch((e: Error) => (broken = e));
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
    await this.pool.end();
  }
}
