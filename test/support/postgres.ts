// A PostgreSQL server for tests, found in this order: AXLE_TEST_DATABASE_URL (a throwaway schema in it
// for each test database); a local server on 127.0.0.1:5432 (a throwaway database each, copied from this
// run's prepared ones); a throwaway cluster started with initdb/pg_ctl (as the postgres user when root),
// the same way. None: the PostgreSQL side of the tests skips, saying what to install once.
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { Prepared } from './prepared.js';

export const POSTGRES_MISSING =
  'PostgreSQL tests skipped: install PostgreSQL (Debian: apt-get install postgresql) or set AXLE_TEST_DATABASE_URL';

const LOCAL_URL = 'postgres://postgres@127.0.0.1:5432/test';

async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** `url` with its database replaced. */
function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/** `url` whose connections see only `schema` (search_path), for isolation inside a given database. */
function withSchema(url: string, schema: string): string {
  const u = new URL(url);
  u.searchParams.set('options', `-c search_path=${schema}`);
  return u.toString();
}

async function admin<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

function binary(name: string): string | undefined {
  const which = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
  if (which.status === 0 && which.stdout.trim()) return which.stdout.trim();
  const root = '/usr/lib/postgresql';
  if (!fs.existsSync(root)) return undefined;
  for (const v of fs.readdirSync(root).sort().reverse()) {
    const p = path.join(root, v, 'bin', name);
    if (fs.existsSync(p)) return p;
  }
  return undefined;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

interface Cluster {
  url: string;
  stop(): void;
}

/** A throwaway cluster in a temp dir, run as the postgres user when this process is root (initdb refuses root). */
async function startCluster(): Promise<Cluster | undefined> {
  const initdb = binary('initdb');
  const pgCtl = binary('pg_ctl');
  if (!initdb || !pgCtl) return undefined;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'axle-pg-'));
  const asRoot = process.getuid?.() === 0;
  const run = (cmd: string, args: string[]) =>
    asRoot ? execFileSync('runuser', ['-u', 'postgres', '--', cmd, ...args]) : execFileSync(cmd, args);
  if (asRoot) execFileSync('chown', ['postgres', dir]);
  const data = path.join(dir, 'data');
  const port = await freePort();
  try {
    run(initdb, ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
    run(pgCtl, [
      '-D',
      data,
      '-w',
      '-l',
      path.join(dir, 'log'),
      '-o',
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`,
      'start',
    ]);
  } catch {
    fs.rmSync(dir, { recursive: true, force: true });
    return undefined;
  }
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop() {
      try {
        run(pgCtl, ['-D', data, '-m', 'immediate', 'stop']);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

export interface TestPostgres {
  /** Where this run's databases are made (with AXLE_TEST_DATABASE_URL, the given database). */
  url: string;
  /** Names this run's databases (or, in a given database, its schemas), so close() drops only those. */
  tag: string;
  /** The prepared databases fresh ones are copied from; none in a given database (its schemas migrate anew). */
  prepared: Record<Exclude<Prepared, 'empty'>, string> | null;
  close(): Promise<void>;
}

/** Whether a PostgreSQL can be had, checked quickly (the test config decides whether to run the PostgreSQL project). */
export async function postgresReachable(): Promise<boolean> {
  return (
    Boolean(process.env.AXLE_TEST_DATABASE_URL) ||
    (await answers(LOCAL_URL)) ||
    Boolean(binary('initdb') && binary('pg_ctl'))
  );
}

/**
 * PostgreSQL for one test run with its prepared databases (`prepare` brings an empty one to its kind), or
 * undefined (after printing POSTGRES_MISSING) when none can be had.
 */
export async function testPostgres(
  prepare: (kind: Exclude<Prepared, 'empty'>, url: string) => Promise<void>,
): Promise<TestPostgres | undefined> {
  const tag = `axle_t_${randomBytes(5).toString('hex')}`;
  const given = process.env.AXLE_TEST_DATABASE_URL;
  if (given)
    return {
      url: given,
      tag,
      prepared: null,
      async close() {
        await admin(given, async (c) => {
          const schemas = await c.query<{ n: string }>('SELECT nspname AS n FROM pg_namespace WHERE nspname LIKE $1', [
            `${tag}%`,
          ]);
          for (const s of schemas.rows) await c.query(`DROP SCHEMA "${s.n}" CASCADE`);
        });
      },
    };
  let server: string | undefined;
  let cluster: Cluster | undefined;
  if (await answers(LOCAL_URL)) server = LOCAL_URL;
  else {
    cluster = await startCluster();
    server = cluster?.url;
  }
  if (!server) {
    console.warn(POSTGRES_MISSING);
    return undefined;
  }
  const adminUrl = server;
  const prepared = { migrated: `${tag}_migrated`, catalog: `${tag}_catalog` };
  const dropAll = () =>
    admin(adminUrl, async (c) => {
      const dbs = await c.query<{ n: string }>('SELECT datname AS n FROM pg_database WHERE starts_with(datname, $1)', [
        tag,
      ]);
      for (const d of dbs.rows) await c.query(`DROP DATABASE IF EXISTS "${d.n}" WITH (FORCE)`);
    });
  try {
    // The catalog one starts as a copy of the migrated one; neither keeps a connection, so both can be templates.
    for (const kind of ['migrated', 'catalog'] as const) {
      await admin(adminUrl, (c) =>
        c.query(`CREATE DATABASE ${prepared[kind]}${kind === 'catalog' ? ` TEMPLATE ${prepared.migrated}` : ''}`),
      );
      await prepare(kind, withDatabase(adminUrl, prepared[kind]));
    }
  } catch (err) {
    await dropAll();
    cluster?.stop();
    throw err;
  }
  return {
    url: adminUrl,
    tag,
    prepared,
    async close() {
      await dropAll();
      cluster?.stop();
    },
  };
}

/**
 * A fresh database of this run starting as `kind`: a copy of the prepared one (CREATE DATABASE … TEMPLATE), or
 * in a given database an empty schema of its own (through search_path), which its first opener migrates.
 */
export async function freshPostgresUrl(pg: Omit<TestPostgres, 'close'>, kind: Prepared): Promise<string> {
  const name = `${pg.tag}_${randomBytes(6).toString('hex')}`;
  if (!pg.prepared) {
    await admin(pg.url, (c) => c.query(`CREATE SCHEMA ${name}`));
    return withSchema(pg.url, name);
  }
  const template = kind === 'empty' ? '' : ` TEMPLATE ${pg.prepared[kind]}`;
  await admin(pg.url, (c) => c.query(`CREATE DATABASE ${name}${template}`));
  return withDatabase(pg.url, name);
}
