// Changes one instance publishes reach the other instances on the database (PostgreSQL LISTEN/NOTIFY),
// also after the listening connection was lost; on SQLite they stay in the process.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../src/clock.js';
import { createLogger } from '../src/logger.js';
import { EmbedderClient } from '../src/search/embedder.js';
import { LearningVectors } from '../src/search/learning-vectors.js';
import { learningsStore } from '../src/store/learnings.js';
import { postgresChanges } from '../src/store/postgres/changes.js';
import { PostgresDatabase } from '../src/store/postgres/db.js';
import type { Store } from '../src/store/open.js';
import { newLearning } from './learning-fixture.js';
import { BACKEND, openTestStore } from '../../../test/support/backend.js';
import { partitionableRelay } from '../../../test/support/relay.js';

/** Resolves on the next call of the returned reload; rejects after 5 s. */
function watch() {
  let calls = 0;
  let wake: (() => void) | undefined;
  return {
    reload: () => {
      calls += 1;
      wake?.();
    },
    get calls() {
      return calls;
    },
    next: () =>
      new Promise<void>((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`no reload within 5 s after ${calls}`)), 5000);
        wake = () => {
          clearTimeout(t);
          wake = undefined;
          resolve();
        };
      }),
  };
}

describe(`changes between instances (${BACKEND})`, () => {
  let store: Awaited<ReturnType<typeof openTestStore>>;
  let other: Store;
  beforeAll(async () => {
    store = await openTestStore();
    other = await store.another();
  });
  afterAll(async () => {
    await store.changes.close();
    await other.changes.close();
    await other.db.close();
    await store.close();
  });

  it('publish runs this instance’s subscribers before it returns, once', async () => {
    const here = watch();
    store.changes.subscribe('learning_vectors', here.reload);
    await store.changes.publish('learning_vectors');
    expect(here.calls).toBe(1);
    await store.changes.publish('catalog');
    expect(here.calls).toBe(1);
  });

  const pgOnly = it.skipIf(BACKEND === 'sqlite');
  pgOnly('another instance reloads on the notification, and after its listener was cut', async () => {
    // A LISTEN connection is up once it is in pg_stat_activity; the other instance's is the one that is not ours.
    const listeners = async () =>
      (
        await store.db.all<{ pid: number }>(
          `SELECT pid FROM pg_stat_activity
           WHERE datname = current_database() AND query = 'LISTEN ' || quote_ident('axle_changes:' || current_schema())`,
        )
      ).map((r) => r.pid);
    // Ours listens since the first test subscribed.
    const deadline = Date.now() + 5000;
    while ((await listeners()).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    const ours = await listeners();
    expect(ours).toHaveLength(1);
    const listener = async () => (await listeners()).find((pid) => !ours.includes(pid));
    const there = watch();
    other.changes.subscribe('catalog', there.reload);
    while (!(await listener()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    const first = await listener();
    expect(first).toBeDefined();

    let next = there.next();
    await store.changes.publish('catalog');
    await next;
    expect(there.calls).toBe(1);

    // Notifications sent while the connection is down are lost: coming back, it reloads anyway.
    next = there.next();
    await store.db.get('SELECT pg_terminate_backend(?)', [first]);
    await next;
    expect(there.calls).toBe(2);
    const back = Date.now() + 5000;
    while ((await listener()) === undefined && Date.now() < back) await new Promise((r) => setTimeout(r, 10));
    expect(await listener()).not.toBe(first);

    next = there.next();
    await store.changes.publish('catalog');
    await next;
    expect(there.calls).toBe(3);
  });

  /** An instance's change listener connected through a relay that can go silent, listening (a notification heard). */
  async function listeningThroughRelay(opts: { heartbeatMs?: number } = {}) {
    const relay = await partitionableRelay(store.env.AXLE_DATABASE_URL!);
    const relayed = await PostgresDatabase.open(relay.url(store.env.AXLE_DATABASE_URL!), { poolSize: 1 });
    const changes = postgresChanges(relayed, opts);
    const there = watch();
    changes.subscribe('catalog', there.reload);
    while (there.calls === 0) {
      await store.changes.publish('catalog');
      await new Promise((r) => setTimeout(r, 20));
    }
    return { relay, relayed, changes, there };
  }

  // Found by putting a relay that goes silent (a network partition: no reset) between the listening connection
  // and PostgreSQL: nothing told the instance its connection was gone, so it never reconnected and served what it
  // kept in memory (the catalog, learning vectors) as it was, whatever the other instances changed, until restarted.
  pgOnly('a listener whose connection goes silent notices, connects again once it can, and reloads', async () => {
    const { relay, relayed, changes, there } = await listeningThroughRelay({ heartbeatMs: 100 });
    try {
      relay.cut();
      const heard = there.calls;
      await store.changes.publish('catalog');
      const next = there.next();
      relay.heal();
      await next;
      expect(there.calls).toBe(heard + 1);
    } finally {
      await changes.close();
      await relay.close();
      await relayed.close();
    }
  });

  // Found the same way: an instance stopping while its listening connection was silent never finished stopping,
  // since closing that connection waited for PostgreSQL to close its end.
  pgOnly('closing while the listening connection is silent does not wait for it', async () => {
    const { relay, relayed, changes } = await listeningThroughRelay();
    try {
      relay.cut();
      await changes.close();
    } finally {
      await relay.close();
      await relayed.close();
    }
  });

  pgOnly(
    'a learning whose vector one instance stored is found by the other’s semantic search at once (the real model)',
    async () => {
      const client = new EmbedderClient();
      await client.init();
      try {
        const model = {
          state: () => 'ready',
          embed: (texts: string[]) => client.embed(texts),
          queryVector: (q: string) => client.queryVector(q),
        };
        // The clock stands still: the other instance's once-a-second look never comes round by itself.
        const clock = new ManualClock();
        const logger = createLogger('silent');
        const publish = () => store.changes.publish('learning_vectors');
        const here = new LearningVectors(store.db, model, logger, clock, publish);
        const there = new LearningVectors(other.db, model, logger, clock);
        const loaded = watch();
        other.changes.subscribe('learning_vectors', async () => {
          await there.sync(true);
          loaded.reload();
        });
        const query = 'message queue consumers keep rebalancing';
        expect(await there.search(query, 3, 0.3, null)).toEqual([]);
        const l = newLearning({
          title: 'Kafka consumer group rebalances in a loop',
          body: 'Raise max.poll.interval.ms above the slowest batch so the broker stops evicting the consumer.',
          tags: ['kafka'],
        });
        await learningsStore.insert(store.db, l);
        const next = loaded.next();
        await here.fill();
        await next;
        expect((await there.search(query, 3, 0.3, null))[0]?.id).toBe(l.id);
      } finally {
        await client.close();
      }
    },
    60_000,
  );

  it.skipIf(BACKEND === 'postgres')('SQLite: one process per database file, so nothing leaves the store', async () => {
    const there = watch();
    other.changes.subscribe('catalog', there.reload);
    await store.changes.publish('catalog');
    expect(there.calls).toBe(0);
  });
});
