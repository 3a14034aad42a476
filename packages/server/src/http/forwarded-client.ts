import { isIP } from 'node:net';
import type { Middleware } from 'koa';
import { sameSecret } from './identity.js';

/**
 * The MCP endpoint calls this instance's API on loopback for its callers. These headers carry the caller's
 * address, vouched for by a token only this process knows, so per-address limits see the real caller rather than
 * 127.0.0.1 (and loopback-only routes do not mistake a remote caller for a local one).
 */
export const FORWARDED_CLIENT_HEADER = 'X-Axle-Forwarded-Client';
export const FORWARD_TOKEN_HEADER = 'X-Axle-Forward-Token';

declare module 'koa' {
  interface DefaultState {
    /** The remote caller a loopback call from this process was made for (see clientIp). */
    forwardedClientIp?: string;
  }
}

const fromLoopback = (ip: string | undefined) => !!ip && (ip === '::1' || /^(::ffff:)?127\./.test(ip));

/** Accepts the forwarded address only on a loopback connection presenting this process's token. */
export function forwardedClient(token: string): Middleware {
  return async (ctx, next) => {
    const given = ctx.get(FORWARD_TOKEN_HEADER);
    const ip = ctx.get(FORWARDED_CLIENT_HEADER);
    if (given && isIP(ip) && fromLoopback(ctx.req.socket.remoteAddress) && sameSecret(given, token)) {
      ctx.state.forwardedClientIp = ip;
    }
    return next();
  };
}
