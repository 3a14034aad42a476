import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import type { Logger } from '../logger.js';

const SAFE_ID = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * Gives each request an id (the caller's X-Request-Id when it is sane), a child logger,
 * and one access-log line. Only the path is logged: query strings can carry tokens.
 */
export function requestLog(logger: Logger, now: () => number) {
  return async (ctx: Context, next: Next) => {
    const incoming = ctx.get('x-request-id');
    const requestId = SAFE_ID.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = requestId;
    ctx.state.log = logger.child({ request_id: requestId });
    ctx.set('X-Request-Id', requestId);
    const started = now();
    try {
      await next();
    } finally {
      ctx.state.log.info({ method: ctx.method, path: ctx.path, status: ctx.status, ms: now() - started }, 'request');
    }
  };
}
