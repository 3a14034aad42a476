// A database that cannot serve (its file system full, a lock held elsewhere) is a failure of the machine,
// not of the request: it answers 503 database_unavailable within a bound (no database message reaches the
// client), nothing is half-written, and the same request succeeds once the database serves again.
//
// Found by running the server on a small tmpfs and filling it (every write route, and the anonymous
// searches that count against an address, answered 500), and by holding a lock on a table of the server's
// PostgreSQL database from another session (requests waited as long as the lock was held), and by dropping
// the database under a running server (requests answered 500).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import pg from 'pg';
import { BACKEND, backendEnv, prepareDataDir } from '../../../test/support/backend.js';
import { serverProcessEnv } from '../../../test/support/process.js';
import { partitionableRelay } from '../../../test/support/relay.js';
import { startTestServer, type TestServer } from '../../../test/support/server.js';
import { post } from '../../../test/support/identity.js';
import { PostgresDatabase } from '../src/store/postgres/db.js';
import { MigrationLockTimeout, migratePostgres } from '../src/store/postgres/migrate.js';
import { jwtFor, newBuyer } from './money-helpers.js';

let server: TestServer | undefined;
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  await server?.stop({ keepData: true });
  server = undefined;
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A data dir on its own small tmpfs, holding the prepared catalog database; undefined without mount rights. */
function smallFilesystem(): string | undefined {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'axle-full-'));
  cleanups.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  if (spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=96m', 'tmpfs', dataDir]).status !== 0) return undefined;
  cleanups.push(() => spawnSync('umount', [dataDir]));
  prepareDataDir(dataDir, 'catalog');
  return dataDir;
}

/** Fills the filesystem holding `dir`; returns the filler's path (delete it to make room again). */
function fill(dir: string): string {
  const filler = path.join(dir, 'filler');
  const fd = fs.openSync(filler, 'w');
  try {
    for (;;) fs.writeSync(fd, Buffer.alloc(1 << 16));
  } catch (err) {
    expect((err as NodeJS.ErrnoException).code).toBe('ENOSPC');
  } finally {
    fs.closeSync(fd);
  }
  return filler;
}

async function expectUnavailable(res: Response): Promise<void> {
  const text = await res.text();
  expect(res.status).toBe(503);
  expect(JSON.parse(text)).toMatchObject({ code: 'database_unavailable' });
  expect(text).not.toMatch(/SQLITE|disk is full|stack/i);
}

describe.runIf(BACKEND === 'sqlite')('a full filesystem under the SQLite database', () => {
  it('answers every write 503 database_unavailable, writes nothing, and serves again once there is room', async (t) => {
    const dataDir = smallFilesystem();
    if (!dataDir) return t.skip('needs permission to mount a small tmpfs');
    server = await startTestServer({}, { dataDir, sqlite: true });
    const buyer = await newBuyer(server);
    const session = { authorization: `Bearer ${await jwtFor(server, buyer.accountId)}` };
    const keysBefore = await server.db.get('SELECT COUNT(*) AS n FROM api_keys');

    const filler = fill(dataDir);
    const writes = () => [
      post(server!, '/knowledge', { query: 'weather forecast' }),
      post(server!, '/auth/device/code', { client_name: 'probe' }),
      post(server!, '/wallet/challenge', { wallet: `0x${'1'.repeat(40)}` }),
      post(server!, '/account/api-keys', {}, session),
      post(server!, '/auth/magic-link', { email: 'full@example.com' }),
    ];
    for (const res of await Promise.all(writes())) await expectUnavailable(res);
    const logged = server.logs.map((l) => JSON.parse(l));
    expect(logged.filter((l) => l.msg === 'unhandled error')).toEqual([]);
    // The operator's log names the cause the client is not shown.
    expect(logged.find((l) => l.msg === 'dependency failed')).toMatchObject({
      level: 50,
      code: 'database_unavailable',
      err: { code: 'SQLITE_FULL' },
    });

    fs.rmSync(filler);
    expect(await server.db.get('SELECT COUNT(*) AS n FROM api_keys')).toEqual(keysBefore);
    expect((await Promise.all(writes())).map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
  });
});

describe.runIf(BACKEND === 'postgres')('a PostgreSQL statement that waits past the statement timeout', () => {
  it('answers 503 database_unavailable within the timeout, spends nothing, and serves once the lock is gone', async () => {
    const timeoutMs = 400;
    const database = await backendEnv('catalog');
    server = await startTestServer({ ...database, AXLE_DATABASE_STATEMENT_TIMEOUT_MS: String(timeoutMs) });
    const other = new pg.Client({ connectionString: database.AXLE_DATABASE_URL });
    await other.connect();
    cleanups.push(() => other.end());
    // Another session (a long migration, an operator's transaction) holds the table every search counts in.
    await other.query('BEGIN');
    await other.query('LOCK TABLE rate_limits IN ACCESS EXCLUSIVE MODE');
    try {
      const started = performance.now();
      await expectUnavailable(await post(server, '/knowledge', { query: 'weather forecast' }));
      expect(performance.now() - started).toBeLessThan(timeoutMs + 2500);
      expect(server.logs.map((l) => JSON.parse(l)).find((l) => l.msg === 'dependency failed')).toMatchObject({
        err: { code: '57014' },
      });
    } finally {
      await other.query('ROLLBACK');
    }
    expect(await server.db.all("SELECT count FROM rate_limits WHERE bucket LIKE 'knowledge-search:%'")).toEqual([]);
    expect((await post(server, '/knowledge', { query: 'weather forecast' })).status).toBe(200);
  });
});

describe.runIf(BACKEND === 'postgres')('a PostgreSQL database that is gone', () => {
  // Found by dropping the database of a running server (DROP DATABASE … WITH (FORCE)): every request that
  // reached the database answered 500, since reconnecting failed with 3D000 (no such database), an error
  // of the connection the server did not count as one.
  it('answers 503 database_unavailable, not 500, when the database no longer exists', async () => {
    const database = await backendEnv('catalog');
    server = await startTestServer(database);
    const url = new URL(database.AXLE_DATABASE_URL!);
    const name = url.pathname.slice(1);
    url.pathname = '/postgres';
    const admin = new pg.Client({ connectionString: url.toString() });
    await admin.connect();
    cleanups.push(() => admin.end());
    // Renamed away rather than dropped: to the server it is gone all the same (its sessions ended, 3D000 on
    // connecting), and a rename does not wait for the cluster-wide checkpoint a drop forces, which takes half a
    // minute while other test files write. The run's teardown drops it by its prefix.
    await admin.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS false`);
    await admin.query('SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity WHERE datname = $1', [name]);
    await admin.query(`ALTER DATABASE "${name}" RENAME TO "${name}_gone"`);
    await expectUnavailable(await post(server, '/knowledge', { query: 'weather forecast' }));
    expect(server.logs.map((l) => JSON.parse(l)).filter((l) => l.msg === 'unhandled error')).toEqual([]);
  }, 120_000);
});

describe.runIf(BACKEND === 'postgres')('an instance cut off from PostgreSQL', () => {
  const timeoutMs = 300;

  /** Two instances on one database, `cutOff` through a relay that goes silent once `trigger` has passed. */
  async function twoInstances(trigger: string) {
    const database = await backendEnv('catalog');
    const settings = { ...database, AXLE_DATABASE_STATEMENT_TIMEOUT_MS: String(timeoutMs) };
    const other = await startTestServer(settings);
    cleanups.push(() => other.stop());
    const relay = await partitionableRelay(database.AXLE_DATABASE_URL!, trigger);
    const cutOff = await startTestServer({ ...settings, AXLE_DATABASE_URL: relay.url(database.AXLE_DATABASE_URL!) });
    // Cleanups run last first: the relay closes before this instance stops.
    cleanups.push(
      () => cutOff.stop(),
      () => relay.close(),
    );
    return { other, cutOff, relay };
  }

  /** Sends `request` until it is served, each refusal a 503 database_unavailable; the last status. */
  async function servedAgain(request: () => Promise<Response>): Promise<number> {
    let status = 0;
    for (let i = 0; i < 20 && status !== 200; i++) {
      const res = await request();
      status = res.status;
      if (status !== 200) await expectUnavailable(res);
    }
    return status;
  }

  // Found by putting a relay that goes silent between one instance and PostgreSQL right after that instance
  // counted a search in the per-address window (its transaction open, the window's row locked): its request
  // never answered, and every search from that address on the other instance answered 503 until the backend
  // left behind was killed by hand (PostgreSQL waits for the silent client until TCP keepalive, hours).
  it('mid-transaction: it answers 503 and the other serves again once the abandoned transaction times out', async () => {
    const { other, cutOff, relay } = await twoInstances('INSERT INTO rate_limits');
    const answer = post(cutOff, '/knowledge', { query: 'weather forecast' });
    while (!relay.silent) await new Promise((r) => setTimeout(r, 10));
    // The other instance waits at most a statement timeout on the abandoned row lock, and serves once
    // PostgreSQL has ended the transaction nobody will finish.
    expect(await servedAgain(() => post(other, '/knowledge', { query: 'weather forecast' }))).toBe(200);
    await expectUnavailable(await answer);
  });

  // Found the same way, the relay going silent once the instance had taken the audit chain's lock, which a
  // transaction takes for its session before it begins (so its snapshot sees the previous holder's commit):
  // no transaction was open to time out, and every audited write on every instance (keys, sign-ins, consent)
  // answered 503 for as long as PostgreSQL kept the silent session.
  it("holding a session lock between transactions: the other instances' audited writes are served again", async () => {
    const { other, cutOff, relay } = await twoInstances('axle:audit-chain');
    // Both accounts made through the other instance: the cut-off one's database handle is behind the relay.
    const [mine, theirs] = [await newBuyer(other), await newBuyer(other)];
    const answer = post(
      cutOff,
      '/account/api-keys',
      {},
      { authorization: `Bearer ${await jwtFor(cutOff, mine.accountId)}` },
    );
    while (!relay.silent) await new Promise((r) => setTimeout(r, 10));
    const session = { authorization: `Bearer ${await jwtFor(other, theirs.accountId)}` };
    expect(await servedAgain(() => post(other, '/account/api-keys', {}, session))).toBe(200);
    await expectUnavailable(await answer);
  });
});

/** GET /health, its status, body, Retry-After and how long it took to answer (wall clock, ms). */
async function health(s: TestServer) {
  const started = performance.now();
  const res = await fetch(`${s.url}/health`);
  return {
    status: res.status,
    body: (await res.json()) as Record<string, unknown>,
    retryAfter: res.headers.get('retry-after'),
    ms: performance.now() - started,
  };
}

/** Polls /health (the clock a second on each time, so each poll may start a read) until it answers `status`. */
async function healthUntil(s: TestServer, status: number) {
  const deadline = performance.now() + 15_000;
  for (;;) {
    s.clock.advance(1000);
    const h = await health(s);
    expect(h.ms).toBeLessThan(1000);
    if (h.status === status || performance.now() > deadline) return h;
  }
}

function expectHealthUnavailable(h: Awaited<ReturnType<typeof health>>) {
  expect(h.status).toBe(503);
  expect(h.retryAfter).toBe('1');
  expect(h.body).toMatchObject({ status: 'unavailable', code: 'database_unavailable', dependency: 'database' });
  expect(JSON.stringify(h.body)).not.toMatch(/ECONN|timeout|SQLITE|stack/i);
}

describe.runIf(BACKEND === 'postgres')('GET /health on an instance cut off from PostgreSQL', () => {
  // Found by stopping PostgreSQL and by partitioning the network under a running server: /health answered
  // 200 status ok from its cached count for as long as the outage lasted, so a load balancer kept sending
  // traffic to an instance that could serve nothing.
  /**
   * A server whose connections to PostgreSQL cross a relay. Cleanups run last first: the relay closes before the
   * server stops, so stopping does not wait on connections the partition left silent (the listening one a second,
   * a background job's statement sent into the partition three statement timeouts).
   */
  async function behindRelay(statementTimeoutMs = 300) {
    const database = await backendEnv('catalog');
    const relay = await partitionableRelay(database.AXLE_DATABASE_URL!);
    const instance = await startTestServer({
      ...database,
      AXLE_DATABASE_STATEMENT_TIMEOUT_MS: String(statementTimeoutMs),
      AXLE_DATABASE_URL: relay.url(database.AXLE_DATABASE_URL!),
    });
    cleanups.push(
      () => instance.stop(),
      () => relay.close(),
    );
    expect((await health(instance)).status).toBe(200);
    return { relay, instance };
  }

  it('a partition: 503 at once once the read has had no answer for a second, 200 again once healed', async () => {
    const { relay, instance } = await behindRelay();
    relay.cut();
    instance.clock.advance(1000);
    // The read just started has not had its second yet.
    expect((await health(instance)).status).toBe(200);
    instance.clock.advance(1000);
    const cut = await health(instance);
    expectHealthUnavailable(cut);
    expect(cut.ms).toBeLessThan(1000);
    expect(instance.logs.map((l) => JSON.parse(l)).find((l) => l.msg.startsWith('health:'))).toMatchObject({
      level: 40,
      msg: 'health: the database does not answer; /health answers 503',
    });
    relay.heal();
    expect((await healthUntil(instance, 200)).status).toBe(200);
    expect(instance.logs.map((l) => JSON.parse(l)).filter((l) => l.msg.startsWith('health:'))).toHaveLength(2);
  });

  it('a partition healed: 200 again within a few polls, not after three statement timeouts', async () => {
    // The hung read gave up only at the pool's query_timeout (3x the statement timeout, 90 s by default): every
    // instance stayed out of rotation that long after the database was back (here 12 s).
    const { relay, instance } = await behindRelay(4000);
    relay.cut();
    instance.clock.advance(1000);
    await health(instance);
    expectHealthUnavailable(await healthUntil(instance, 503));
    relay.heal();
    const healed = performance.now();
    expect((await healthUntil(instance, 200)).status).toBe(200);
    expect(performance.now() - healed).toBeLessThan(5000);
  });

  it('a partition of several seconds healed: 200 again within a few polls', async () => {
    // The read after the hung one opened a connection into the partition and waited for it the pool's 30 s
    // connection timeout, however soon the partition healed.
    const { relay, instance } = await behindRelay(4000);
    relay.cut();
    const cutAt = performance.now();
    let last: Awaited<ReturnType<typeof health>> | undefined;
    while (performance.now() - cutAt < 4000) {
      instance.clock.advance(1000);
      last = await health(instance);
      await new Promise((r) => setTimeout(r, 250));
    }
    expectHealthUnavailable(last!);
    relay.heal();
    const healed = performance.now();
    expect((await healthUntil(instance, 200)).status).toBe(200);
    expect(performance.now() - healed).toBeLessThan(5000);
  });

  it('PostgreSQL gone (connections reset and refused): 503 with the next poll, the cause in the log only', async () => {
    const { relay, instance } = await behindRelay();
    await relay.close();
    expectHealthUnavailable(await healthUntil(instance, 503));
    const warned = instance.logs.map((l) => JSON.parse(l)).find((l) => l.msg.startsWith('health:'));
    expect(warned.err.message ?? warned.err.code).toBeTruthy();
  });
});

describe.runIf(BACKEND === 'postgres')('a start that finds the migration lock held', () => {
  // Found by holding the migration lock from another session (an instance hung mid-migration) and starting an
  // instance: it waited on the lock forever, saying nothing.

  /** A fresh database whose migration lock another session holds (as a hung instance would); its pid. */
  async function lockHeld() {
    const database = await backendEnv('migrated');
    const holder = new pg.Client({ connectionString: database.AXLE_DATABASE_URL, application_name: 'hung-instance' });
    await holder.connect();
    cleanups.push(() => holder.end());
    await holder.query("SELECT pg_advisory_lock(hashtext('axle:migrate'))");
    const { rows } = await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    return { url: database.AXLE_DATABASE_URL!, holder, pid: rows[0]!.pid };
  }

  it('waits at most the bound, saying who holds the lock, then fails naming it; takes it once released', async () => {
    const { url, holder, pid } = await lockHeld();
    const db = await PostgresDatabase.open(url, { poolSize: 2 });
    cleanups.push(() => db.close());
    const warned: Array<{ fields: Record<string, unknown>; msg: string }> = [];
    const logger = { warn: (fields: Record<string, unknown>, msg: string) => warned.push({ fields, msg }) };
    const started = performance.now();
    const failed = await migratePostgres(db, undefined, Date.now(), { waitMs: 400, logger: logger as never }).catch(
      (e: Error) => e,
    );
    expect(performance.now() - started).toBeGreaterThanOrEqual(400);
    expect(performance.now() - started).toBeLessThan(3000);
    expect(failed).toBeInstanceOf(MigrationLockTimeout);
    expect((failed as Error).message).toMatch(
      new RegExp(
        `^waited 0\\.\\d s for the migration lock \\(axle:migrate\\) held by PostgreSQL backend pid ${pid} \\(hung-instance`,
      ),
    );
    expect((failed as Error).message).not.toContain('\n');
    expect(warned[0]).toMatchObject({
      msg: 'waiting for the migration lock held by another session',
      fields: { holder: expect.stringContaining(`pid ${pid} (hung-instance`), waitMs: 400 },
    });
    // Released (the other instance done): the next start takes it and finds the work done.
    await holder.query("SELECT pg_advisory_unlock(hashtext('axle:migrate'))");
    expect(await migratePostgres(db, undefined, Date.now(), { waitMs: 400 })).toEqual([]);
  });

  it('the server process exits 1 with one line on stderr, no stack trace', async () => {
    const main = fileURLToPath(new URL('../dist/main.js', import.meta.url));
    expect(fs.existsSync(main), `${main} missing: run npx tsc -b first`).toBe(true);
    const { url, pid } = await lockHeld();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'axle-lock-'));
    cleanups.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
    const proc = spawn(process.execPath, [main], {
      env: serverProcessEnv(dataDir, { AXLE_DATABASE_URL: url, AXLE_MIGRATION_LOCK_WAIT_MS: '500' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    cleanups.push(() => proc.exitCode === null && proc.kill('SIGKILL'));
    let [stdout, stderr] = ['', ''];
    proc.stdout!.on('data', (chunk) => (stdout += chunk));
    proc.stderr!.on('data', (chunk) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => proc.once('exit', (c) => resolve(c)));
    expect(code).toBe(1);
    expect(stderr).toMatch(
      new RegExp(
        `^axle-server: waited 0\\.\\d s for the migration lock \\(axle:migrate\\) held by PostgreSQL backend pid ${pid} .*AXLE_MIGRATION_LOCK_WAIT_MS\\n$`,
      ),
    );
    const logged = stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(logged.find((l) => l.msg === 'waiting for the migration lock held by another session')).toMatchObject({
      level: 40,
      holder: expect.stringContaining(`pid ${pid} `),
    });
  }, 60_000);
});

describe.runIf(BACKEND === 'postgres')('GET /health on a busy instance whose database answers', () => {
  // A load balancer polling /health must not take out an instance (every instance, under the same load) whose
  // database answers at once but whose pool is taken by slow requests: that turns a slow moment into an outage.
  it('every pooled connection held by a slow statement: still 200, within a poll', async () => {
    server = await startTestServer({ ...(await backendEnv('catalog')), AXLE_DATABASE_POOL: '2' });
    expect((await health(server)).status).toBe(200);
    const slow = [server.db.get('SELECT pg_sleep(3)'), server.db.get('SELECT pg_sleep(3)')];
    for (let i = 0; i < 3; i++) {
      server.clock.advance(1000);
      await new Promise((r) => setTimeout(r, 600));
      const h = await health(server);
      expect(h.ms).toBeLessThan(1000);
      expect(h.status).toBe(200);
    }
    await Promise.all(slow);
  });
});
