// Hostile input against the marketplace, money, MCP and A2A routes over real HTTP: no answer is a 5xx, every
// error is JSON with a request_id, and bad input gets the spec's status. Bounded: a few hundred requests.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STACK_FRAME } from '../../../test/support/leaks.js';
import { startTestServer, type TestServer } from '../../../test/support/server.js';
import { ADMIN_TOKEN, learningBody } from './knowledge-helpers.js';
import { STATS_TTL_MS } from '../src/services/knowledge.js';
import { jwtFor, newBuyer, seedLearning } from './money-helpers.js';

let server: TestServer;
let key: string;
let jwt: string;
let learningId: string;

beforeAll(async () => {
  server = await startTestServer({
    AXLE_ADMIN_TOKEN: ADMIN_TOKEN,
    AXLE_PROCESSOR_SECRET_KEY: 'sk_test_axle',
    AXLE_PROCESSOR_WEBHOOK_SECRET: 'whsec_test_axle',
    AXLE_PROCESSOR_API_URL: 'http://127.0.0.1:9',
  });
  const buyer = await newBuyer(server, { credits: 5, terms: true });
  key = buyer.key;
  jwt = await jwtFor(server, buyer.accountId);
  learningId = (await seedLearning(server)).id;
});
afterAll(() => server.stop());

type Auth = 'none' | 'key' | 'jwt' | 'admin';
interface Probe {
  method: string;
  path: string;
  body?: string;
  auth?: Auth;
  headers?: Record<string, string>;
  /** A JSON-RPC endpoint: its errors are JSON-RPC envelopes rather than the REST error body. */
  rpc?: boolean;
}

/** 5xx answers the spec gives on purpose: a paused payout lane, a remote processor that is down, batch settlement. */
const SPEC_5XX = new Set(['withdraw_paused_noncustodial_migration', 'provider_unavailable', 'not_implemented']);

function headersFor(auth: Auth, extra: Record<string, string> = {}): Record<string, string> {
  const h: Record<string, string> = { 'content-type': 'application/json', ...extra };
  if (auth === 'key') h['x-api-key'] = key;
  if (auth === 'jwt') h.authorization = `Bearer ${jwt}`;
  if (auth === 'admin') h.authorization = `Bearer ${ADMIN_TOKEN}`;
  return h;
}

async function send(p: Probe): Promise<{ status: number; body: unknown; text: string }> {
  const res = await fetch(server.url + p.path, {
    method: p.method,
    headers: headersFor(p.auth ?? 'key', p.headers),
    ...(p.body !== undefined && { body: p.body }),
  });
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, body, text };
}

/** Answers the probe must never give: a 5xx, a stack trace, or an error that is not JSON with a request_id. */
async function expectClean(p: Probe): Promise<number> {
  const r = await send(p);
  const where = `${p.method} ${p.path} ${(p.body ?? '').slice(0, 80)} -> ${r.status} ${r.text.slice(0, 200)}`;
  const code = (r.body as { code?: unknown } | undefined)?.code;
  if (!SPEC_5XX.has(code as string)) expect(r.status, where).toBeLessThan(500);
  expect(r.text, where).not.toMatch(STACK_FRAME);
  expect(r.text, where).not.toContain('node_modules');
  if (r.status >= 400) {
    expect(r.body, where).toBeTypeOf('object');
    if (p.rpc) return r.status;
    expect((r.body as { request_id?: unknown }).request_id, where).toBeTypeOf('string');
    expect((r.body as { code?: unknown }).code, where).toBeTypeOf('string');
  }
  return r.status;
}

const j = (v: unknown) => JSON.stringify(v);
const deep = (n: number): unknown => (n === 0 ? {} : { a: deep(n - 1) });
const HUGE = 'x'.repeat(200_000);
const BIDI = '\u202e\u0000\u001b[31m\ufdfa'.repeat(50);

/** Bodies every JSON write route gets. */
const HOSTILE_BODIES = [
  '',
  'null',
  '[]',
  '"x"',
  '{',
  j(deep(40)),
  j({ query: HUGE }),
  j({ a: 'y'.repeat(1024 * 1024) }),
  j({ ids: Array.from({ length: 101 }, (_, i) => `lrn_${i}`) }),
  j({ ids: [learningId, learningId, 1, null] }),
  j({ amount: -1, amount_usd: Number.NaN, pack: 7, rating: 1.5, wallet: BIDI }),
  j({ amount_usd: 1e308, stars: '5', query: BIDI, limit: -1, offset: 1e20 }),
];

const WRITE_ROUTES: Array<{ path: string; auth: Auth }> = [
  { path: '/learn', auth: 'key' },
  { path: '/knowledge', auth: 'none' },
  { path: `/knowledge/${learningId}/rate`, auth: 'key' },
  { path: '/account/pending/approve', auth: 'jwt' },
  { path: '/account/pending/reject', auth: 'jwt' },
  { path: '/account/pending/approve-clean', auth: 'jwt' },
  { path: '/account/pending/lrn_nope/approve', auth: 'jwt' },
  { path: '/admin/review/lrn_nope/approve', auth: 'admin' },
  { path: '/admin/review/lrn_nope/reject', auth: 'admin' },
  { path: '/checkout/session', auth: 'jwt' },
  { path: '/webhook/processor', auth: 'none' },
  { path: '/wallet/challenge', auth: 'none' },
  { path: '/wallet/verify', auth: 'none' },
  { path: '/account/link-wallet', auth: 'jwt' },
  { path: '/withdraw', auth: 'none' },
  { path: '/withdraw/typed-data', auth: 'none' },
  { path: '/withdraw/processor', auth: 'jwt' },
  { path: '/account/payout-account', auth: 'jwt' },
  { path: '/admin/settle', auth: 'admin' },
];

describe('hostile bodies on the new write routes', () => {
  for (const route of WRITE_ROUTES)
    it(`POST ${route.path}`, async () => {
      // Route paths are built before beforeAll ran; the seeded learning's id is substituted here.
      const path = route.path.replace('undefined', learningId);
      for (const body of HOSTILE_BODIES) await expectClean({ method: 'POST', path, body, auth: route.auth });
    });
});

describe('hostile fields in otherwise valid bodies', () => {
  const learn = (over: Record<string, unknown>, n: number) => j(learningBody(100 + n, over));
  const learnCases: Array<[Record<string, unknown>, number]> = [
    [{ title: 'x'.repeat(100_000) }, 400],
    [{ body: 'y '.repeat(300_000) }, 400],
    [{ tags: Array.from({ length: 5000 }, (_, i) => `t${i}`) }, 400],
    [{ tags: ['a'.repeat(10_000)] }, 400],
    [{ related_skills: Array.from({ length: 5000 }, (_, i) => `s${i}`) }, 400],
    [{ unlock_price: -1 }, 400],
    [{ unlock_price: 1e308 }, 400],
    [{ unlock_price: '0.10' }, 400],
    [{ category: '__proto__' }, 400],
    [{ replaces: 'lrn_nope' }, 404],
    [{ replaces: { $ne: null } }, 400],
    [{ contributor_wallet: 'not-a-wallet' }, 400],
    [{ quality_self_assessment: { accuracy: Number.MAX_SAFE_INTEGER } }, 400],
    // The spec treats an unknown channel as direct.
    [{ submission_channel: { toString: 1 } }, 201],
  ];
  it('POST /learn', async () => {
    for (const [i, [over, status]] of learnCases.entries())
      expect(await expectClean({ method: 'POST', path: '/learn', body: learn(over, i) }), j(over).slice(0, 80)).toBe(
        status,
      );
  });
  it('POST /knowledge and ratings', async () => {
    const search = [
      { query: 'x', limit: 1e9 },
      { query: 'x', limit: 2.5 },
      { query: 'x', category: '\u0000' },
      { query: '\ufdfa'.repeat(1001) },
      { query: 'x', related_skill: 'r'.repeat(10_000) },
    ];
    for (const body of search)
      expect(await expectClean({ method: 'POST', path: '/knowledge', body: j(body) }), j(body).slice(0, 60)).toBe(400);
    const rate = `/knowledge/${learningId}/rate`;
    for (const helpfulness of [-1, 0, 6, 2.5, '5', null, 1e308])
      expect(await expectClean({ method: 'POST', path: rate, body: j({ helpfulness }) }), String(helpfulness)).toBe(
        400,
      );
    const notes = 'n'.repeat(100_000);
    expect(await expectClean({ method: 'POST', path: rate, body: j({ helpfulness: 4, notes }) })).toBe(400);
  });
  it('money amounts', async () => {
    for (const amount_usd of [-1, 0, Number.NaN, 1e308, '10', 0.0000001]) {
      const body = j({ amount_usd });
      const status = await expectClean({ method: 'POST', path: '/withdraw/processor', auth: 'jwt', body });
      expect([400, 503]).toContain(status);
    }
    for (const pack of ['__proto__', 'constructor', 'starter\u0000', 'x'.repeat(10_000)])
      expect(await expectClean({ method: 'POST', path: '/checkout/session', auth: 'jwt', body: j({ pack }) })).toBe(
        400,
      );
  });
});

describe('hostile ids and query parameters on the new read routes', () => {
  const ids = ['lrn_nope', '%00', '..%2F..%2Fetc', 'x'.repeat(5000), '%E2%80%AE', '%F0%9F%92%A9', '0x', '-1'];
  it('GET /knowledge/{id} and friends', async () => {
    for (const id of ids) {
      await expectClean({ method: 'GET', path: `/knowledge/${id}`, auth: 'key' });
      await expectClean({ method: 'GET', path: `/contributor/${id}`, auth: 'none' });
      await expectClean({ method: 'GET', path: `/contributor/${id}/settlements`, auth: 'none' });
      await expectClean({ method: 'DELETE', path: `/learn/${id}`, auth: 'key' });
    }
  });
  it('paging and filters', async () => {
    const qs = [
      'limit=-1',
      'limit=1e9',
      'limit=NaN',
      'offset=-5',
      'offset=99999999999999999999',
      'cursor=%00%FF',
      'full=2',
      `ids=${Array.from({ length: 101 }, (_, i) => `lrn_${i}`).join(',')}`,
      'ids=,,,',
      'limit=1&limit=2',
      'status=%00',
    ];
    for (const path of [
      '/account/pending',
      '/account/pending/summary',
      '/account/purchases',
      '/account/earnings',
      '/admin/review',
      '/admin/settlements',
      '/knowledge/stats',
    ])
      for (const q of qs)
        await expectClean({ method: 'GET', path: `${path}?${q}`, auth: path.startsWith('/admin') ? 'admin' : 'jwt' });
  });
});

describe('malformed payments', () => {
  const b64 = (v: unknown) => Buffer.from(j(v)).toString('base64');
  const headers = [
    '',
    '!!!',
    'e30=',
    b64([]),
    b64({ x402Version: '1' }),
    b64({ x402Version: 2, payload: { signature: 5, authorization: { value: -1, from: 'x' } } }),
    Buffer.from(j(deep(60))).toString('base64'),
    'A'.repeat(20_000),
  ];
  it('x402 headers on GET /knowledge/{id}', async () => {
    for (const h of headers)
      for (const name of ['x-payment', 'payment-signature', 'sign-in-with-x'])
        expect(
          await expectClean({ method: 'GET', path: `/knowledge/${learningId}`, auth: 'none', headers: { [name]: h } }),
        ).not.toBe(200);
  });
  it('unsigned and wrongly signed processor events', async () => {
    for (const sig of ['', 't=1,v1=00', 'x'.repeat(10_000), 't=abc'])
      expect(
        await expectClean({
          method: 'POST',
          path: '/webhook/processor',
          auth: 'none',
          headers: { 'stripe-signature': sig },
          body: j({ type: 'checkout.session.completed', data: { object: { metadata: { account_id: 'acc_x' } } } }),
        }),
      ).toBe(400);
  });
});

/** 1.0 message bodies that are JSON but not what a message is. */
const rpcBodies = () => [
  j({ message: { messageId: 'm', role: 'ROLE_USER', parts: [{ data: null }, { text: { a: 1 } }, { url: 5 }] } }),
  j({ message: { messageId: 'm', role: 7, parts: [{ raw: '!!!' }] }, configuration: { historyLength: -1 } }),
];

describe('MCP and A2A wire garbage', () => {
  const call = (method: string, params: unknown) => j({ jsonrpc: '2.0', id: 1, method, params });
  it('JSON-RPC shapes', async () => {
    const rpc = [
      j({ jsonrpc: '2.0' }),
      call('tools/call', { name: 'learn', arguments: learningBody(9, { tags: 5 }) }),
      call('message/send', { message: { parts: [{ kind: 'text', text: HUGE }] } }),
      call('tasks/get', { id: 'x'.repeat(10_000) }),
      j(Array.from({ length: 200 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'tasks/get', params: { id: 't' } }))),
    ];
    for (const body of rpc) {
      await expectClean({ method: 'POST', path: '/a2a', auth: 'none', body, rpc: true });
      const accept = { accept: 'application/json, text/event-stream' };
      await expectClean({ method: 'POST', path: '/mcp', auth: 'key', body, headers: accept, rpc: true });
    }
  });
  it('A2A HTTP+JSON bodies', async () => {
    const v1 = { 'A2A-Version': '1.0' };
    for (const body of [...HOSTILE_BODIES, ...rpcBodies()]) {
      await expectClean({ method: 'POST', path: '/a2a/rest/message:send', auth: 'none', body, headers: v1, rpc: true });
      await expectClean({
        method: 'POST',
        path: '/a2a/rest/tasks/x:cancel',
        auth: 'none',
        body,
        headers: v1,
        rpc: true,
      });
    }
    for (const path of ['/a2a/rest/tasks/%00', `/a2a/rest/tasks/${'t'.repeat(5000)}`, '/a2a/rest/tasks?pageSize=-1'])
      await expectClean({ method: 'GET', path, auth: 'none', headers: v1, rpc: true });
  });
});

describe('requests the HTTP parser refuses', () => {
  /** Writes raw bytes and reads the whole answer until the server closes the connection. */
  const raw = (bytes: string) =>
    new Promise<string>((resolve, reject) => {
      const { port } = new URL(server.url);
      const socket = net.connect(Number(port), '127.0.0.1', () => socket.write(bytes));
      let out = '';
      socket.on('data', (d) => (out += d));
      socket.on('end', () => resolve(out));
      socket.on('error', reject);
    });
  const bodyOf = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));

  it('answers oversized headers with a JSON 431 and a request_id', async () => {
    const res = await fetch(`${server.url}/knowledge/${learningId}`, { headers: { 'x-payment': 'A'.repeat(20_000) } });
    expect(res.status).toBe(431);
    const body = await res.json();
    expect(body).toMatchObject({ code: 'headers_too_large', max_header_bytes: expect.any(Number) });
    expect(body.request_id).toBe(res.headers.get('x-request-id'));
  });

  it('answers bytes that are not HTTP with a JSON 400', async () => {
    for (const bytes of [
      'GARBAGE\r\n\r\n',
      'POST /learn HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n',
      'GET / HTTP/1.1\r\nHo\u0000st: x\r\n\r\n',
    ]) {
      const answer = await raw(bytes);
      expect(answer).toMatch(/^HTTP\/1\.1 400 /);
      expect(bodyOf(answer)).toMatchObject({ code: 'malformed_request', request_id: expect.any(String) });
    }
  });
});

describe('work a public read can cause', () => {
  it('GET /knowledge/stats reads every visible learning at most once per STATS_TTL_MS', async () => {
    const count = async () =>
      ((await (await fetch(`${server.url}/knowledge/stats`)).json()) as { learnings_count: number }).learnings_count;
    const before = await count();
    await seedLearning(server);
    for (let i = 0; i < 5; i++) expect(await count()).toBe(before);
    server.clock.advance(STATS_TTL_MS);
    // Past the TTL the stored answer is served once more while one recomputation runs.
    let after = await count();
    for (let i = 0; i < 50 && after === before; i++) after = await count();
    expect(after).toBe(before + 1);
  });
});
