import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Changes, Topic } from '../changes.js';
import { Subscribers } from '../changes.js';
import type { PostgresDatabase } from './db.js';

/** One channel per schema, so deployments (and test runs) sharing a database by schema do not hear each other. */
const CHANNEL_OF_SCHEMA = "'axle_changes:' || current_schema()";
const TOPICS = new Set<string>(['learning_vectors', 'catalog']);
const RECONNECT_MAX_MS = 10_000;
/**
 * How often the listening connection is asked for a reply: a connection that goes silent (a network partition
 * sends no reset) raises no error, so without one it would wait forever, its notifications lost.
 */
const HEARTBEAT_MS = 10_000;
/** How long closing waits for the listening connection to end. */
const END_WAIT_MS = 1000;

/**
 * PostgreSQL: NOTIFY on the channel after a write's commit (to every listening instance) and
 * LISTEN on a connection of its own, opened at the first subscription; when that connection drops it is
 * opened again with backoff and every subscriber reloads, since notifications sent meanwhile are lost.
 */
export function postgresChanges(db: PostgresDatabase, { heartbeatMs = HEARTBEAT_MS } = {}): Changes {
  const subscribers = new Subscribers();
  // Payloads are `<topic> <instance>`; an instance's own notifications are skipped (publish ran its subscribers).
  const instance = randomBytes(6).toString('hex');
  let client: pg.Client | undefined;
  let closed = false;
  let retryMs = 100;
  let timer: NodeJS.Timeout | undefined;

  async function listen(reconnected: boolean): Promise<void> {
    if (closed) return;
    const c = new pg.Client(db.pool.options);
    client = c;
    c.on('notification', (n) => {
      const [topic, from] = (n.payload ?? '').split(' ');
      if (from !== instance && TOPICS.has(topic!)) void subscribers.run(topic as Topic);
    });
    let beat: NodeJS.Timeout | undefined;
    const lost = () => {
      clearInterval(beat);
      if (client !== c || closed) return;
      client = undefined;
      void c.end().catch(() => undefined);
      timer = setTimeout(() => void listen(true), retryMs);
      timer.unref();
      retryMs = Math.min(RECONNECT_MAX_MS, retryMs * 2);
    };
    c.on('error', lost);
    c.on('end', lost);
    try {
      await c.connect();
      const { rows } = await c.query<{ channel: string }>(`SELECT quote_ident(${CHANNEL_OF_SCHEMA}) AS channel`);
      await c.query(`LISTEN ${rows[0]!.channel}`);
    } catch {
      lost();
      return;
    }
    retryMs = 100;
    // A reply still awaited when the next beat comes round: the connection is taken as lost.
    let awaiting = false;
    beat = setInterval(() => {
      if (awaiting) return lost();
      awaiting = true;
      c.query('SELECT 1').then(() => {
        awaiting = false;
      }, lost);
    }, heartbeatMs);
    beat.unref();
    if (reconnected) await subscribers.run();
  }

  return {
    async publish(topic) {
      await subscribers.run(topic);
      await db.get(`SELECT pg_notify(${CHANNEL_OF_SCHEMA}, ?)`, [`${topic} ${instance}`]);
    },
    subscribe(topic, reload) {
      const first = subscribers.size === 0;
      subscribers.add(topic, reload);
      if (first) void listen(false);
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      const c = client;
      client = undefined;
      // Ending waits for PostgreSQL to close its side, which a silent connection never does: not for long.
      let waited: NodeJS.Timeout | undefined;
      await Promise.race([
        c?.end().catch(() => undefined),
        new Promise((resolve) => {
          waited = setTimeout(resolve, END_WAIT_MS);
        }),
      ]);
      clearTimeout(waited);
    },
  };
}
