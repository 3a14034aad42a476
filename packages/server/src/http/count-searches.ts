import type { Context, Next } from 'koa';
import type { SearchCounts } from '../services/search-counts.js';

/** Search routes whose served requests GET /stats reports under `queries`. */
const SEARCHES: Record<string, string> = { '/discover': 'discover', '/knowledge': 'knowledge' };

/** Counts each search answered with 2xx. Rejected requests (4xx, thrown errors) are not searches served. */
export function countSearches(counts: SearchCounts) {
  return async (ctx: Context, next: Next) => {
    await next();
    const name = ctx.method === 'POST' ? SEARCHES[ctx.path] : undefined;
    if (name && ctx.status >= 200 && ctx.status < 300) counts.add(name);
  };
}
