import { isIP } from 'node:net';
import type { Context } from 'koa';

const unmap = (ip: string): string => (ip.startsWith('::ffff:') && isIP(ip.slice(7)) === 4 ? ip.slice(7) : ip);

/**
 * The caller's address for rate limiting. X-Forwarded-For is trusted only when the operator says a
 * proxy sets it (AXLE_TRUST_PROXY); then the last entry, the one our proxy appended, is the client.
 * Earlier entries are whatever the client sent and could be forged. A loopback call the MCP endpoint makes for
 * a remote caller counts as that caller (forwarded-client.ts).
 */
export function clientIp(ctx: Context, trustProxy: boolean): string {
  if (ctx.state.forwardedClientIp) return ctx.state.forwardedClientIp;
  if (trustProxy) {
    const last = ctx
      .get('x-forwarded-for')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .pop();
    if (last && isIP(last)) return unmap(last);
  }
  return unmap(ctx.req.socket.remoteAddress ?? 'unknown');
}
