// The dialect-neutral surface every repository and service uses. SQL is written once with `?`
// placeholders in the subset both SQLite and PostgreSQL accept; each dialect's database
// (store/db.ts for SQLite, store/postgres/db.ts) implements these interfaces.

export type Params = readonly unknown[];

export interface RunResult {
  changes: number;
}

/** What a repository needs: the same surface inside and outside a transaction. */
export interface Queryable {
  /** For store/ repositories whose SQL differs by dialect (one statement where PostgreSQL can do more at once). */
  readonly dialect: 'sqlite' | 'postgres';
  run(sql: string, params?: Params): Promise<RunResult>;
  get<T = Record<string, unknown>>(sql: string, params?: Params): Promise<T | undefined>;
  all<T = Record<string, unknown>>(sql: string, params?: Params): Promise<T[]>;
  exec(sql: string): Promise<void>;
  /**
   * Inside a transaction: `get` as its last statement, committing it. PostgreSQL sends the statement and
   * COMMIT in one message, so the row locks it takes are released without another round trip to the client.
   * Nothing may run in the transaction after it. Outside a transaction: `get`.
   */
  getLast<T = Record<string, unknown>>(sql: string, params?: Params): Promise<T | undefined>;
  /**
   * Inside a transaction: serialises the rest of it with every other transaction taking the same
   * key, across instances (the audit chain's appends). SQLite has one writer, so it already is.
   */
  lock(key: string): Promise<void>;
}

export interface TxOptions {
  /**
   * `serializable` (the default): the transaction behaves as if it ran alone; one that collided with
   * another is run again. `read committed`: each statement sees what others committed before it, and
   * writes to a row another transaction is writing wait for it instead of colliding. Only for hot paths
   * whose every write is a single conditional statement (an UPDATE … WHERE that re-checks, an upsert, an
   * insert) and whose decisions on earlier reads are guarded by `lock`, which then holds until the end.
   * SQLite has one writer, so both run alone.
   */
  isolation?: 'serializable' | 'read committed';
}

/** The database: a Queryable that also runs transactions (each all-or-nothing). */
export interface Transactor extends Queryable {
  /** Runs `fn` in one transaction; any throw rolls back and is rethrown. `fn` may be run again after a conflict. */
  tx<T>(fn: (q: Queryable) => Promise<T>, opts?: TxOptions): Promise<T>;
  /** Where health checks read: never queued behind requests for a connection (PostgreSQL: one of its own). */
  readonly health: Queryable;
  close(): Promise<void>;
}

/** True for the database itself, false for a transaction's Queryable. */
export const isTransactor = (q: Queryable): q is Transactor => typeof (q as Partial<Transactor>).tx === 'function';
