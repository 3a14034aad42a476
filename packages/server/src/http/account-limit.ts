import type { Middleware } from 'koa';
import type { RateLimiter } from '../services/rate-limit.js';

export interface AccountLimit {
  /** The bucket's name: requests count in `<name>:account:<account id>`. */
  name: string;
  perMinute: number;
}

/**
 * Counts a request that carries an identity against its account, in the database (every instance sees the same
 * counts, however many addresses the account's keys call from); past the limit the answer is 429 rate_limited with
 * Retry-After. Requests without an identity pass uncounted (addressLimit counts them). Runs after the identity
 * middleware.
 */
export function accountLimit(rateLimiter: RateLimiter, limit: AccountLimit): Middleware {
  const rule = { limit: limit.perMinute, windowMs: 60_000 };
  return async (ctx, next) => {
    const identity = ctx.state.identity;
    if (identity) await rateLimiter.take(`${limit.name}:account:${identity.accountId}`, rule);
    await next();
  };
}
