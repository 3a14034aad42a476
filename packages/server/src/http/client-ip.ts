import { isIP } from 'node:net';
import type { Context } from 'koa';

const unmap = (ip: string): string => (ip.startsWith('::ffff:') && isIP(ip.slice(7)) === 4 ? ip.slice(7) : ip);

/**
 * An IPv6 address as its /64 network (host bits zero): one host, or one home or cloud network, is handed a whole
 * /64, so counting each address would let a client rotate through 2^64 of them. IPv4, loopback, and IPv6 forms
 * that carry an IPv4 address (NAT64, with a dotted tail) stay whole.
 */
function network(ip: string): string {
  if (isIP(ip) !== 6 || ip === '::1' || ip.includes('.') || ip.includes('%')) return ip;
  const [head = '', tail] = ip.toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::`;
}

/**
 * The caller's address for rate limiting (an IPv6 caller's /64). X-Forwarded-For is trusted only when the operator says a
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
    if (last && isIP(last)) return network(unmap(last));
  }
  return network(unmap(ctx.req.socket.remoteAddress ?? 'unknown'));
}
