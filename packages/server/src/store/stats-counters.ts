import type { Queryable } from './db.js';

/** Searches served, by kind. One upsert per increment, so concurrent instances never lose a count. */
export const queryCounters = {
  async increment(q: Queryable, name: string): Promise<void> {
    await q.run('INSERT INTO query_counters (name, count) VALUES (?, 1) ON CONFLICT (name) DO UPDATE SET count = count + 1', [name]);
  },

  async all(q: Queryable): Promise<Record<string, number>> {
    const rows = await q.all<{ name: string; count: number }>('SELECT name, count FROM query_counters ORDER BY name');
    return Object.fromEntries(rows.map((r) => [r.name, r.count]));
  },
};
