import type { Context, Middleware } from 'koa';
import type { RateLimiter } from '../services/rate-limit.js';
import { clientIp } from './client-ip.js';

export interface AddressLimit {
  /** The bucket's name: requests count in `<name>:ip:<address>`. */
  name: string;
  perMinute: number;
  /** Requests with an identity pass uncounted (their accounts are limited on their own). */
  anonymousOnly?: boolean;
  /** Counts only the requests this holds for (e.g. those carrying a payment); the others pass uncounted. */
  only?: (ctx: Context) => boolean;
}

/**
 * Counts a request against its caller's address, in the database (every instance sees the same counts); past the
 * limit the answer is 429 rate_limited with Retry-After. Runs after the identity middleware.
 */
export function addressLimit(rateLimiter: RateLimiter, trustProxy: boolean, limit: AddressLimit): Middleware {
  const rule = { limit: limit.perMinute, windowMs: 60_000 };
  return async (ctx, next) => {
    if (!(limit.anonymousOnly && ctx.state.identity) && (limit.only?.(ctx) ?? true))
      await rateLimiter.take(`${limit.name}:ip:${clientIp(ctx, trustProxy)}`, rule);
    await next();
  };
}
