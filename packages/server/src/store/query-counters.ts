import type { Queryable } from './queryable.js';

/** Searches served, by kind. One upsert per increment, so concurrent instances never lose a count. */
export const queryCountersStore = {
  async increment(q: Queryable, name: string, by = 1): Promise<void> {
    await q.run(
      'INSERT INTO query_counters (name, count) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET count = query_counters.count + excluded.count',
      [name, by],
    );
  },

  async all(q: Queryable): Promise<Record<string, number>> {
    const rows = await q.all<{ name: string; count: number }>('SELECT name, count FROM query_counters ORDER BY name');
    return Object.fromEntries(rows.map((r) => [r.name, r.count]));
  },
};
