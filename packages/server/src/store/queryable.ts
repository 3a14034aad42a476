// The dialect-neutral surface every repository and service uses. SQL is written once with `?`
// placeholders in the subset both SQLite and PostgreSQL accept; each dialect's database
// (store/db.ts for SQLite, store/postgres/db.ts) implements these interfaces.

export type Params = readonly unknown[];

export interface RunResult {
  changes: number;
}

/** What a repository needs: the same surface inside and outside a transaction. */
export interface Queryable {
  run(sql: string, params?: Params): Promise<RunResult>;
  get<T = Record<string, unknown>>(sql: string, params?: Params): Promise<T | undefined>;
  all<T = Record<string, unknown>>(sql: string, params?: Params): Promise<T[]>;
  exec(sql: string): Promise<void>;
  /**
   * Inside a transaction: serialises the rest of it with every other transaction taking the same
   * key, across instances (the audit chain's appends). SQLite has one writer, so it already is.
   */
  lock(key: string): Promise<void>;
}

/** The database: a Queryable that also runs transactions (each all-or-nothing, serialisable). */
export interface Transactor extends Queryable {
  /** Runs `fn` in one transaction; any throw rolls back and is rethrown. `fn` may be run again after a conflict. */
  tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** True for the database itself, false for a transaction's Queryable. */
export const isTransactor = (q: Queryable): q is Transactor => typeof (q as Partial<Transactor>).tx === 'function';
