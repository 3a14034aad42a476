import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback JSON-RPC proxy in front of the local chain that can fail chosen methods (an RPC provider erroring
 * for some calls: a rate limit, an outage), answering them with a JSON-RPC error as providers do, or hold them
 * (a slow provider) until released.
 */
export async function startRpcProxy(target: string) {
  const failing = new Set<string>();
  const holding = new Set<string>();
  let waiting: Array<() => void> = [];
  const seen = new Map<string, number>();
  const answer = (id: unknown) => ({ jsonrpc: '2.0', id, error: { code: -32005, message: 'limit exceeded' } });
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const calls = JSON.parse(body) as { id: unknown; method: string } | Array<{ id: unknown; method: string }>;
    const list = Array.isArray(calls) ? calls : [calls];
    for (const c of list) seen.set(c.method, (seen.get(c.method) ?? 0) + 1);
    res.setHeader('content-type', 'application/json');
    if (list.some((c) => failing.has(c.method))) {
      const errors = list.map((c) => answer(c.id));
      res.end(JSON.stringify(Array.isArray(calls) ? errors : errors[0]));
      return;
    }
    if (list.some((c) => holding.has(c.method))) await new Promise<void>((r) => waiting.push(r));
    const forwarded = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    res.statusCode = forwarded.status;
    res.end(await forwarded.text());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** From now on `methods` answer a JSON-RPC error (none given: every method answers again). */
    fail(...methods: string[]) {
      failing.clear();
      for (const m of methods) failing.add(m);
    },
    /** From now on `methods` wait, unanswered, until release(). */
    hold(...methods: string[]) {
      for (const m of methods) holding.add(m);
    },
    /** Forwards the held calls, and holds nothing more. */
    release() {
      holding.clear();
      for (const r of waiting) r();
      waiting = [];
    },
    /** Calls held now. */
    held: () => waiting.length,
    /** Calls of `method` received so far. */
    seen: (method: string) => seen.get(method) ?? 0,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
