import { ERROR_CODES } from '@axle/sdk';
import type { Queryable } from '../store/db.js';
import { rateLimitsStore } from '../store/rate-limits.js';
import { DomainError } from '../domain/errors.js';

export interface Limit {
  bucket: string;
  max: number;
  windowMs: number;
}

/**
 * Counts one hit on every bucket and throws 429 (Retry-After in seconds) if any is over its limit.
 * Call inside a transaction: the throw rolls the hits back, so refused requests use up no quota
 * and the counters stay exact under any number of concurrent requests.
 */
export async function enforceLimits(q: Queryable, limits: Limit[], now: number): Promise<void> {
  let retryAfterMs = 0;
  for (const l of limits) {
    const { count, window_start } = await rateLimitsStore.hit(q, l.bucket, now, l.windowMs);
    if (count > l.max) retryAfterMs = Math.max(retryAfterMs, window_start + l.windowMs - now);
  }
  if (retryAfterMs > 0) {
    const retryAfter = Math.max(1, Math.ceil(retryAfterMs / 1000));
    throw new DomainError(ERROR_CODES.RATE_LIMITED, 'Too many requests; try again later', { retry_after_seconds: retryAfter }, retryAfter);
  }
}
