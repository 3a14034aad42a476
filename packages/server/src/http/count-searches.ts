import type { Context, Next } from 'koa';
import type { Database } from '../store/db.js';
import { queryCounters } from '../store/stats-counters.js';

/** Search routes whose served requests GET /stats reports under `queries`. */
const SEARCHES: Record<string, string> = { '/discover': 'discover', '/knowledge': 'knowledge' };

/**
 * Counts each search answered with 2xx, in the database so every instance adds to the same
 * totals. Rejected requests (4xx, thrown errors) are not searches served.
 */
export function countSearches(db: Database) {
  return async (ctx: Context, next: Next) => {
    await next();
    const name = ctx.method === 'POST' ? SEARCHES[ctx.path] : undefined;
    if (name && ctx.status >= 200 && ctx.status < 300) await queryCounters.increment(db, name);
  };
}
