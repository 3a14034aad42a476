// PostgreSQL for the eval and benches: AXLE_BENCH_DATABASE_URL (a server where databases may be created),
// else the local server on 127.0.0.1:5432 (user postgres, trust). Each fresh() is a new database, all
// dropped by close(). Undefined when neither answers (the PostgreSQL column is then left out).
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export async function benchPostgres() {
  const server = process.env.AXLE_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const admin = new pg.Client({ connectionString: server, connectionTimeoutMillis: 2000 });
  try {
    await admin.connect();
  } catch {
    return undefined;
  }
  const created = [];
  return {
    async fresh() {
      const name = `axle_bench_${randomBytes(5).toString('hex')}`;
      await admin.query(`CREATE DATABASE ${name}`);
      created.push(name);
      const u = new URL(server);
      u.pathname = `/${name}`;
      return u.toString();
    },
    async close() {
      for (const name of created) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

export const POSTGRES_MISSING_BENCH =
  'PostgreSQL column left out: no server at 127.0.0.1:5432 (install PostgreSQL, or set AXLE_BENCH_DATABASE_URL)';
