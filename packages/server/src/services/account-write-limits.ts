import { LIMITS } from '@axle/sdk';
import type { Queryable } from '../store/queryable.js';
import type { Bucket, RateLimiter } from './rate-limit.js';

/** A write an account can repeat: API key creation, consent changes, and the marketplace's POST /learn, ratings, retractions. */
export type AccountWrite = keyof typeof LIMITS.accountWrites;

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

/** The two windows (a burst a minute, a total an hour) that bound `write` for one account. */
export function accountWriteBuckets(write: AccountWrite, accountId: string): Bucket[] {
  const { perMinute, perHour } = LIMITS.accountWrites[write];
  return [
    { key: `account-write:${write}:minute:${accountId}`, limit: perMinute, windowMs: MINUTE_MS },
    { key: `account-write:${write}:hour:${accountId}`, limit: perHour, windowMs: HOUR_MS },
  ];
}

/**
 * Per-account write limits, counted in the database so every instance sees them. Call `take` with the
 * `q` of the write's own transaction: a refused or failed write then spends no quota.
 */
export interface AccountWriteLimiter {
  /** Counts one `write` for the account; throws DomainError rate_limited (429, Retry-After) past a window. */
  take(write: AccountWrite, accountId: string, q: Queryable): Promise<void>;
  /** Takes back the hit `take` counted, for a write that did not happen after all. */
  refund(write: AccountWrite, accountId: string, q: Queryable): Promise<void>;
  /** Whether `take` would refuse now (a window is full), without counting: work a refused write need not do. */
  exhausted(write: AccountWrite, accountId: string): Promise<boolean>;
}

export function createAccountWriteLimiter(rateLimiter: RateLimiter): AccountWriteLimiter {
  return {
    take: (write, accountId, q) => rateLimiter.takeAll(accountWriteBuckets(write, accountId), q),
    refund: (write, accountId, q) => rateLimiter.refund(accountWriteBuckets(write, accountId), q),
    async exhausted(write, accountId) {
      for (const b of accountWriteBuckets(write, accountId))
        if ((await rateLimiter.used(b.key, b)) >= b.limit) return true;
      return false;
    },
  };
}
