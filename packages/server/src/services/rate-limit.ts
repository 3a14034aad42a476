import { ERROR_CODES } from '@axle/sdk';
import type { Clock } from '../clock.js';
import { DomainError } from '../domain/errors.js';
import type { Queryable, Transactor } from '../store/queryable.js';
import { rateLimitsStore } from '../store/rate-limits.js';

/** At most `limit` hits per fixed window of `windowMs`. */
export interface RateRule {
  limit: number;
  windowMs: number;
}

/** A rule on a named bucket: `<what>:<by>:<who>`, e.g. `magic-link:ip:127.0.0.1` or `learn:account:acc_…`. */
export interface Bucket extends RateRule {
  key: string;
}

/**
 * Fixed-window counters kept in the database, so several server instances share them. Pass the `q` of
 * the caller's transaction: when the request is refused (or fails later) the hit rolls back with it, so
 * refused requests use up no quota and the counters stay exact under concurrent requests.
 */
export interface RateLimiter {
  /** Counts one hit on the bucket; throws DomainError rate_limited (with retry_after_seconds) past the limit. */
  take(key: string, rule: RateRule, q?: Queryable): Promise<void>;
  /** Counts one hit on every bucket, then throws once for the longest wait if any is over its limit. */
  takeAll(buckets: Bucket[], q?: Queryable): Promise<void>;
  /** Takes back one hit on every bucket (counted by takeAll) for work that did not happen after all. */
  refund(buckets: Bucket[], q?: Queryable): Promise<void>;
  /** Hits counted in the bucket's open window, without counting one. */
  used(key: string, rule: RateRule, q?: Queryable): Promise<number>;
  /** Forgets the windows of buckets whose key starts with `prefix` that opened more than `windowMs` ago. */
  sweep(prefix: string, windowMs: number, q?: Queryable): Promise<void>;
}

export function createRateLimiter({ db, clock }: { db: Transactor; clock: Clock }): RateLimiter {
  /** Counts the hits; returns the longest wait (ms) over the buckets past their limit, 0 when none is. */
  async function hitAll(buckets: Bucket[], q: Queryable): Promise<number> {
    const now = clock.now();
    let retryAfterMs = 0;
    for (const b of buckets) {
      const { count, window_start } = await rateLimitsStore.hit(q, b.key, now, b.windowMs);
      if (count > b.limit) retryAfterMs = Math.max(retryAfterMs, window_start + b.windowMs - now);
    }
    return retryAfterMs;
  }
  async function takeAll(buckets: Bucket[], q?: Queryable): Promise<void> {
    // The counter's upsert writes: without the caller's transaction it runs in one of its own.
    const retryAfterMs = await (q ? hitAll(buckets, q) : db.tx((tx) => hitAll(buckets, tx)));
    if (retryAfterMs > 0) {
      const retryAfter = Math.max(1, Math.ceil(retryAfterMs / 1000));
      throw new DomainError(
        ERROR_CODES.RATE_LIMITED,
        'Too many requests; try again later',
        { retry_after_seconds: retryAfter },
        retryAfter,
      );
    }
  }
  return {
    take: (key, rule, q) => takeAll([{ key, ...rule }], q),
    takeAll,
    refund: async (buckets, q = db) => {
      for (const b of buckets) await rateLimitsStore.unhit(q, b.key, clock.now(), b.windowMs);
    },
    used: (key, rule, q = db) => rateLimitsStore.count(q, key, clock.now(), rule.windowMs),
    sweep: (prefix, windowMs, q = db) => rateLimitsStore.deleteExpired(q, prefix, clock.now() - windowMs),
  };
}
