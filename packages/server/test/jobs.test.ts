// Background jobs run once per interval however many instances look at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../src/clock.js';
import { createLogger } from '../src/logger.js';
import { createJobs, type Job } from '../src/services/jobs.js';
import { retentionJob } from '../src/services/retention.js';
import { jobLeasesStore } from '../src/store/job-leases.js';
import type { Store } from '../src/store/open.js';
import { BACKEND, openTestStore } from '../../../test/support/backend.js';

const INTERVAL = 60_000;

describe(`background jobs (${BACKEND})`, () => {
  let store: Awaited<ReturnType<typeof openTestStore>>;
  const others: Store[] = [];
  const clock = new ManualClock();
  beforeAll(async () => {
    store = await openTestStore();
    // Two more connection pools on the same database stand in for two more instances.
    others.push(await store.another(), await store.another());
  });
  afterAll(async () => {
    for (const o of others) await o.db.close();
    await store.close();
  });

  it('three instances ticking together run a job once per interval, never twice', async () => {
    const ran: number[] = [];
    const job: Job = { name: 'count', intervalMs: INTERVAL, run: async (_q, now) => void ran.push(now) };
    const logger = createLogger('silent');
    const instances = [store, ...others].map(({ db }) => createJobs({ db, clock, logger, jobs: [job], pollMs: 0 }));
    for (let i = 0; i < 5; i++) {
      await Promise.all(instances.flatMap((j) => [j.tick(), j.tick()]));
      clock.advance(INTERVAL / 2);
      await Promise.all(instances.map((j) => j.tick()));
      clock.advance(INTERVAL / 2);
    }
    expect(ran).toHaveLength(5);
    for (let i = 1; i < ran.length; i++) expect(ran[i]! - ran[i - 1]!).toBe(INTERVAL);
    expect((await jobLeasesStore.byName(store.db, 'count'))?.runs).toBe(5);
    await Promise.all(instances.map((j) => j.close()));
  });

  // Found by ticking one instance with its clock a year ahead: its claim's time stood in the others' future, so
  // no instance ran the job (retention, payout and settlement reconciliation) for a year, even after that clock
  // was corrected.
  it("a claim more than an interval ahead of an instance's clock (a clock set wrong) does not stop it running the job", async () => {
    const ran: string[] = [];
    const job: Job = { name: 'skewed', intervalMs: INTERVAL, run: async () => void ran.push('ran') };
    const logger = createLogger('silent');
    const ahead = new ManualClock(clock.now() + 365 * 24 * 3_600_000);
    await createJobs({ db: others[0]!.db, clock: ahead, logger, jobs: [job], pollMs: 0 }).tick();
    const honest = createJobs({ db: store.db, clock, logger, jobs: [job], pollMs: 0 });
    await honest.tick();
    await honest.tick();
    clock.advance(INTERVAL);
    await honest.tick();
    expect(ran).toEqual(['ran', 'ran', 'ran']);
  });

  it('a failed run leaves the interval unclaimed, so the next look runs it', async () => {
    let fail = true;
    const job: Job = {
      name: 'flaky',
      intervalMs: INTERVAL,
      run: async () => {
        if (fail) throw new Error('down');
      },
    };
    const jobs = createJobs({ db: store.db, clock, logger: createLogger('silent'), jobs: [job], pollMs: 0 });
    await jobs.tick();
    expect(await jobLeasesStore.byName(store.db, 'flaky')).toBeUndefined();
    fail = false;
    await jobs.tick();
    expect((await jobLeasesStore.byName(store.db, 'flaky'))?.runs).toBe(1);
  });

  it('an outside job runs on the pool after its claim commits, once per interval, even while it is still running', async () => {
    let release!: () => void;
    const slow = new Promise<void>((r) => (release = r));
    let claimSeen: unknown;
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    const ran: number[] = [];
    const job: Job = {
      name: 'network',
      intervalMs: INTERVAL,
      outside: true,
      run: async (q, now) => {
        ran.push(now);
        claimSeen = await q.get('SELECT holder FROM job_leases WHERE name = ?', ['network']).catch((e) => e);
        started();
        await slow;
      },
    };
    const logger = createLogger('silent');
    const [first, ...rest] = [store, ...others].map(({ db }) =>
      createJobs({ db, clock, logger, jobs: [job], pollMs: 0 }),
    );
    const firstTick = first!.tick();
    await running;
    // Run on the pool, not in a transaction: the claim is committed while the job waits on the network.
    expect(claimSeen).toMatchObject({ holder: expect.any(String) });
    await Promise.all(rest.map((j) => j.tick()));
    expect(ran).toHaveLength(1);
    release();
    await firstTick;
    clock.advance(INTERVAL);
    await Promise.all([first!, ...rest].map((j) => j.tick()));
    expect(ran).toHaveLength(2);
    // A failed outside run has used its interval: the next interval retries it.
    const failing = createJobs({
      db: store.db,
      clock,
      logger,
      jobs: [{ name: 'down', intervalMs: INTERVAL, outside: true, run: () => Promise.reject(new Error('down')) }],
      pollMs: 0,
    });
    await failing.tick();
    expect((await jobLeasesStore.byName(store.db, 'down'))?.runs).toBe(1);
    await failing.tick();
    expect((await jobLeasesStore.byName(store.db, 'down'))?.runs).toBe(1);
  });

  it('a job still running holds up no other job: the next look runs the others', async () => {
    let release!: () => void;
    const slow = new Promise<void>((r) => (release = r));
    const quick: number[] = [];
    const jobs = createJobs({
      db: store.db,
      clock,
      logger: createLogger('silent'),
      jobs: [
        { name: 'long', intervalMs: INTERVAL, outside: true, run: () => slow },
        { name: 'short', intervalMs: INTERVAL, run: async (_q, now) => void quick.push(now) },
      ],
      pollMs: 0,
    });
    // tick() also waits for the long run, so no tick is awaited until it ends. The short job has run once
    // its run returned, but its look lasts until its claim commits: a tick before that joins that look, so
    // ticks go on (as the timer's would) until the next interval's run is seen.
    const ticks: Array<Promise<void>> = [];
    const ran = async (n: number) => {
      const deadline = Date.now() + 15_000;
      while (quick.length < n && Date.now() < deadline) {
        ticks.push(jobs.tick());
        await new Promise((r) => setTimeout(r, 5));
      }
      expect(quick).toHaveLength(n);
    };
    await ran(1);
    clock.advance(INTERVAL);
    await ran(2);
    release();
    await Promise.all(ticks);
    expect(quick).toHaveLength(2);
    expect((await jobLeasesStore.byName(store.db, 'long'))?.runs).toBe(1);
    await jobs.close();
  });

  it('retention drops expired sign-in links and day-old rate-limit windows, and keeps live ones', async () => {
    const now = clock.now();
    await store.db.run(
      'INSERT INTO magic_links (token_hash, email, created_at, expires_at) VALUES (?, ?, ?, ?), (?, ?, ?, ?)',
      ['old', 'a@example.com', now - 2000, now - 1000, 'live', 'b@example.com', now, now + 60_000],
    );
    await store.db.run('INSERT INTO rate_limits (bucket, window_start, count) VALUES (?, ?, 1), (?, ?, 1)', [
      'x:old',
      now - 2 * 86_400_000,
      'x:live',
      now,
    ]);
    await store.db.tx((q) => retentionJob(INTERVAL).run(q, now));
    expect(await store.db.all('SELECT token_hash FROM magic_links ORDER BY token_hash')).toEqual([
      { token_hash: 'live' },
    ]);
    expect(await store.db.all("SELECT bucket FROM rate_limits WHERE bucket LIKE 'x:%'")).toEqual([
      { bucket: 'x:live' },
    ]);
  });
});
