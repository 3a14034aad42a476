// Changes one instance publishes reach the other instances on the database (PostgreSQL LISTEN/NOTIFY),
// also after the listening connection was lost; on SQLite they stay in the process.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../src/store/open.js';
import { BACKEND, openTestStore } from '../../../test/support/backend.js';

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
          "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN axle_changes'",
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

  it.skipIf(BACKEND === 'postgres')('SQLite: one process per database file, so nothing leaves the store', async () => {
    const there = watch();
    other.changes.subscribe('catalog', there.reload);
    await store.changes.publish('catalog');
    expect(there.calls).toBe(0);
  });
});
