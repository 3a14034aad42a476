import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Router from '@koa/router';
import { ERROR_CODES, z } from '@axle/sdk';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bodyParser, jsonDepth } from '../src/http/body.js';
import { errorMiddleware } from '../src/http/error-middleware.js';
import { DomainError } from '../src/domain/errors.js';
import { Api, reply } from '../src/http/route.js';

describe('jsonDepth', () => {
  it.each([
    ['1', 0],
    ['{}', 1],
    ['[[], {"a": [1]}]', 3],
    ['{"s": "[[[[{{{{"}', 1],
    ['{"s": "\\"[[["}', 1],
  ])('%s -> %d', (text, depth) => expect(jsonDepth(text)).toBe(depth));
});

describe('error middleware and body parser over HTTP', () => {
  let server: http.Server;
  let base: string;
  beforeAll(async () => {
    const app = new Koa();
    const router = new Router();
    const api = new Api(router, {
      'POST /echo/{id}': 'public',
      'GET /teapot': 'public',
      'GET /typed': 'public',
      'GET /crash': 'public',
    });
    api.route({
      method: 'post',
      path: '/echo/{id}',
      operationId: 'echo',
      summary: 'echo',
      tags: ['t'],
      params: z.object({ id: z.string().min(2) }),
      body: z.object({ n: z.number().int() }),
      responses: { 201: { description: 'ok' } },
      handler: ({ body, params }) => ({ id: params.id, n: body.n }),
    });
    api.route({
      method: 'get',
      path: '/teapot',
      operationId: 'teapot',
      summary: 'custom status',
      tags: ['t'],
      responses: { 200: { description: 'ok' }, 418: { description: 'teapot' } },
      handler: () => reply(418, { short: true }),
    });
    api.route({
      method: 'get',
      path: '/typed',
      operationId: 'typed',
      summary: 'typed error',
      tags: ['t'],
      responses: { 200: { description: 'ok' } },
      handler: () => {
        throw new DomainError(ERROR_CODES.CONFLICT, 'Taken', { id: 'x' }, 3);
      },
    });
    api.route({
      method: 'get',
      path: '/crash',
      operationId: 'crash',
      summary: 'bug',
      tags: ['t'],
      responses: { 200: { description: 'ok' } },
      handler: () => {
        throw new Error('SELECT secret FROM keys');
      },
    });
    app.use(errorMiddleware());
    app.use(bodyParser({ maxBytes: 1024, maxDepth: 3 }));
    app.use(router.routes());
    app.use(router.allowedMethods());
    server = http.createServer(app.callback()).listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const post = (path: string, body: string, type = 'application/json') =>
    fetch(base + path, { method: 'POST', headers: { 'content-type': type }, body });

  it('validates and answers with the declared 2xx status', async () => {
    const res = await post('/echo/ab', '{"n": 3}');
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({ id: 'ab', n: 3 });
  });

  it('names the failing field on a validation error', async () => {
    const res = await post('/echo/ab', '{"n": "x"}');
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.field).toBe('body.n');
    expect(body.error).toMatch(/body\.n/);
    const res2 = await post('/echo/a', '{"n": 1}');
    expect((await res2.json()).field).toBe('path.id');
  });

  it.each([
    ['malformed JSON', '{"n": ', 400, 'malformed_json'],
    ['nesting deeper than the limit', '{"n": [[[1]]]}', 400, 'nested_json'],
    ['a body over the size limit', JSON.stringify({ n: 1, pad: 'x'.repeat(2000) }), 413, 'payload_too_large'],
  ])('%s', async (_name, body, status, code) => {
    const res = await post('/echo/ab', body);
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toMatch(/json/);
    expect((await res.json()).code).toBe(code);
  });

  it('answers 413 to a chunked body (no Content-Length) once it passes the limit, and the connection still serves the next request', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const res = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(
        `${base}/echo/ab`,
        { method: 'POST', agent, headers: { 'content-type': 'application/json' } },
        (r) => {
          let body = '';
          r.on('data', (c) => (body += c));
          r.on('end', () => resolve({ status: r.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
      req.write('{"n": 1, "pad": "');
      for (let i = 0; i < 4; i++) req.write('x'.repeat(512));
      req.end('"}');
    });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body).code).toBe('payload_too_large');
    const next = await fetch(`${base}/echo/ab`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"n": 2}',
    });
    expect(await next.json()).toEqual({ id: 'ab', n: 2 });
    agent.destroy();
  });

  it('renders unknown routes, wrong methods, typed errors and bugs as JSON', async () => {
    const nf = await fetch(`${base}/nowhere`);
    expect([nf.status, (await nf.json()).code]).toEqual([404, 'not_found']);
    const na = await fetch(`${base}/echo/ab`);
    expect([na.status, (await na.json()).code]).toEqual([405, 'method_not_allowed']);
    const typed = await fetch(`${base}/typed`);
    expect(typed.status).toBe(409);
    expect(typed.headers.get('retry-after')).toBe('3');
    expect(await typed.json()).toMatchObject({ error: 'Taken', code: 'conflict', id: 'x' });
    const tea = await fetch(`${base}/teapot`);
    expect([tea.status, await tea.json()]).toEqual([418, { short: true }]);
    const crash = await fetch(`${base}/crash`);
    expect(crash.status).toBe(500);
    const text = await crash.text();
    expect(text).not.toMatch(/SELECT|secret|at /);
    expect(JSON.parse(text).code).toBe('internal_error');
  });
});
