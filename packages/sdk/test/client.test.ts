import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AxleApiError, AxleClient, z } from '../src/index.js';

let server: http.Server;
let base: string;
const seen: Array<{ method?: string; url?: string; headers: http.IncomingHttpHeaders; body: string }> = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method, url: req.url, headers: req.headers, body });
      res.setHeader('content-type', 'application/json');
      if (req.url?.startsWith('/missing')) {
        res.statusCode = 404;
        res.end(JSON.stringify({ error: 'Skill not found', code: 'not_found' }));
      } else res.end(JSON.stringify({ ok: true, n: 2 }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('AxleClient', () => {
  it('sends JSON, the key and the query, and parses with the schema', async () => {
    const client = new AxleClient({ baseUrl: base, apiKey: 'axl_test' });
    const out = await client.request('POST', '/discover', {
      body: { query: 'weather' },
      query: { limit: 3, skip: undefined },
      schema: z.object({ ok: z.boolean(), n: z.number() }),
    });
    expect(out).toEqual({ ok: true, n: 2 });
    const last = seen.at(-1)!;
    expect(last.url).toBe('/discover?limit=3');
    expect(last.headers['x-api-key']).toBe('axl_test');
    expect(JSON.parse(last.body)).toEqual({ query: 'weather' });
  });

  it('throws AxleApiError with the status and body on an error answer', async () => {
    const client = new AxleClient({ baseUrl: base });
    const err = await client.request('GET', '/missing').catch((e) => e);
    expect(err).toBeInstanceOf(AxleApiError);
    expect(err.status).toBe(404);
    expect(err.body.code).toBe('not_found');
  });

  it('fails loudly when the answer does not match the schema', async () => {
    const client = new AxleClient({ baseUrl: base });
    await expect(client.request('GET', '/x', { schema: z.object({ ok: z.string() }) })).rejects.toThrow();
  });
});
