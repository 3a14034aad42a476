// An outsider's fuzz of every operation in the server's own GET /openapi.json, over real HTTP on both backends: a
// seeded batch of hostile requests per operation (wrong types, missing and extra fields, huge strings, odd numbers,
// NUL and lone surrogates, invalid percent-encoding, odd content types, bodies that are not objects), each with no
// credential and with a valid one. Every answer must be a status the operation documents (or one the shared rules of
// docs/http-api.md give every route), never a 5xx the operation does not document, a JSON error with a code and no
// internals; and an operation that only ever refused left the stored business rows as they were.
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STACK_FRAME } from '../../../test/support/leaks.js';
import { seededRandom } from '../../../test/support/random.js';
import { startTestServer, type TestServer } from '../../../test/support/server.js';
import { ADMIN_TOKEN } from './knowledge-helpers.js';
import { jwtFor, newBuyer, seedLearning } from './money-helpers.js';

const REQUESTS_PER_OPERATION = 40;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

interface Schema {
  $ref?: string;
  type?: string;
  enum?: unknown[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  minimum?: number;
  minLength?: number;
  pattern?: string;
}
interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema?: Schema;
}
interface Operation {
  operationId: string;
  security?: Array<Record<string, unknown>>;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, unknown>;
}
interface Doc {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

// Started while the file is collected: the document's operations are the tests.
// The card processor is configured but unreachable, so the money routes run up to their call to it.
const server: TestServer = await startTestServer({
  AXLE_ADMIN_TOKEN: ADMIN_TOKEN,
  AXLE_PROCESSOR_SECRET_KEY: 'sk_test_axle',
  AXLE_PROCESSOR_WEBHOOK_SECRET: 'whsec_test_axle',
  AXLE_PROCESSOR_API_URL: 'http://127.0.0.1:9',
});
// A connection per request: the server may close a connection after answering a hostile request before reading its
// body, and a next request sent on it would fail in the client (ECONNRESET), judging the client, not the server.
const fresh = new Agent({ pipelining: 0 });
const fetch = (url: string, init: Parameters<typeof undiciFetch>[1] = {}) =>
  undiciFetch(url, { ...init, dispatcher: fresh });

const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as Doc;
let key: string;
let jwt: string;
/** A session of a suspended account, and a key of an account that has not accepted the terms. */
let suspendedJwt: string;
let termsKey: string;
/** The account the admin routes name. */
let targetAccountId: string;
let learningId: string;

beforeAll(async () => {
  const buyer = await newBuyer(server, { credits: 5, terms: true });
  key = buyer.key;
  jwt = await jwtFor(server, buyer.accountId);
  const suspended = await newBuyer(server, { credits: 5, terms: true });
  suspendedJwt = await jwtFor(server, suspended.accountId);
  const res = await fetch(`${server.url}/admin/accounts/${suspended.accountId}/suspend`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  expect(res.status).toBe(200);
  termsKey = (await newBuyer(server)).key;
  targetAccountId = (await newBuyer(server)).accountId;
  learningId = (await seedLearning(server)).id;
});
afterAll(() => server.stop());

// ---- seeded choice ---------------------------------------------------------------------------------------------

type Rand = () => number;
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[r() % xs.length]!;
const hash = (s: string) => [...s].reduce((h, c) => (Math.imul(h, 31) + c.charCodeAt(0)) >>> 0, 7) || 1;

// ---- hostile values ----------------------------------------------------------------------------------------------

/** A JSON text value: `raw` is spliced into the body as is (1e309 and -0 have no JSON.stringify form). */
class Raw {
  constructor(readonly text: string) {}
}
const HUGE = 'x'.repeat(100_000);
const BIDI = '\u202e\u001b[31m\ufdfa';
const HOSTILE_VALUES: unknown[] = [
  '',
  HUGE,
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfffy',
  BIDI,
  'zz_unknown_enum',
  -1,
  0,
  0.5,
  1e20,
  new Raw('1e309'),
  new Raw('-1e309'),
  new Raw('-0'),
  Number.NaN,
  '5',
  true,
  null,
  [],
  ['a', 1, null],
  {},
  { $ne: null },
  { a: { b: { c: { d: { e: { f: { g: {} } } } } } } },
];
/** Strings only, NUL twice as likely: PostgreSQL text cannot hold it. */
const HOSTILE_STRINGS = [...HOSTILE_VALUES.filter((v) => typeof v === 'string'), 'x\u0000', '\u0000\u0000'];
/** Path segments and query values, already percent-encoded (or deliberately not validly so). */
const HOSTILE_SEGMENTS = [
  '%00',
  'a%00b',
  'x%00',
  '%00%00',
  '%E0%A4%A',
  '%',
  '%zz',
  '%ED%A0%80',
  '%C0%AF',
  '%FF',
  '..%2F..%2Fetc',
  'x'.repeat(5000),
  '%E2%80%AE',
  '-1',
  '1e309',
  'NaN',
  '0x',
  '%20',
];

const b64 = (v: string) => Buffer.from(v).toString('base64');
/** Header values: garbage, JSON that is not the expected shape, base64 of both, oversized but under the header limit. */
const HOSTILE_HEADERS = [
  '',
  '%00',
  'null',
  '{}',
  '[]',
  b64('null'),
  b64('[]'),
  b64('{"x402Version":"2","payload":{"signature":5}}'),
  b64('{"x402Version":2,"accepted":{},"payload":{"authorization":{"value":"-1","validBefore":1e309}}}'),
  'axl_' + 'A'.repeat(43),
  'x'.repeat(8000),
  't=1,v1=00',
  '0x',
  '\t \t',
];
/** A plausible, valid-looking value for a path or query parameter, by name. */
function plausible(method: string, path: string, name: string, schema: Schema | undefined): string {
  const s = resolve(schema);
  if (path.startsWith('/admin/accounts/') && name === 'id') return targetAccountId;
  if (s?.enum?.length) return String(s.enum[0]);
  if (name === 'wallet') return '0x1111111111111111111111111111111111111111';
  if (name === 'resource') return method === 'post' && path === '/a2a/rest/{resource}' ? 'message:send' : 'tasks';
  if (name === 'id') return learningId;
  if (s?.type === 'integer' || s?.type === 'number') return String(s.minimum ?? 1);
  if (s?.type === 'boolean') return 'true';
  return 'x';
}

function resolve(schema: Schema | undefined): Schema | undefined {
  let s = schema;
  for (let i = 0; s?.$ref && i < 10; i++) s = doc.components.schemas[s.$ref.replace('#/components/schemas/', '')];
  if (s?.allOf?.length) return resolve(s.allOf[0]);
  if (s?.anyOf?.length) return resolve(s.anyOf.find((a) => resolve(a)?.type !== 'null') ?? s.anyOf[0]);
  if (s?.oneOf?.length) return resolve(s.oneOf[0]);
  return s;
}

/** A body the schema would mostly accept: every required property with a plausible value. */
function sample(schema: Schema | undefined, depth = 0): unknown {
  const s = resolve(schema);
  if (!s || depth > 4) return 'x';
  if (s.enum?.length) return s.enum[0];
  switch (s.type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(s.properties ?? {}))
        if (s.required?.includes(k)) out[k] = sampleProperty(k, v, depth);
      return out;
    }
    case 'array':
      return [sample(s.items, depth + 1)];
    case 'integer':
    case 'number':
      return s.minimum !== undefined ? Math.max(s.minimum, 1) : 1;
    case 'boolean':
      return true;
    default:
      return 'x'.repeat(Math.max(1, s.minLength ?? 1));
  }
}
function sampleProperty(name: string, schema: Schema, depth: number): unknown {
  if (name.includes('wallet')) return '0x1111111111111111111111111111111111111111';
  if (name === 'email') return 'fuzz@example.com';
  return sample(schema, depth + 1);
}

/** JSON text for a value that may hold Raw pieces. */
function toJson(v: unknown): string {
  if (v instanceof Raw) return v.text;
  if (Array.isArray(v)) return `[${v.map(toJson).join(',')}]`;
  if (v && typeof v === 'object')
    return `{${Object.entries(v)
      .map(([k, x]) => `${JSON.stringify(k)}:${toJson(x)}`)
      .join(',')}}`;
  return JSON.stringify(v) ?? 'null';
}

// ---- one hostile request ------------------------------------------------------------------------------------------

interface Probe {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  label: string;
}

type Auth = 'none' | 'key' | 'jwt' | 'suspended' | 'no-terms' | 'admin';
/** No credential, each valid user credential (also where the route takes another), and the admin token where used. */
function authsFor(op: Operation): Auth[] {
  const admin = (op.security ?? []).some((s) => 'AdminToken' in s);
  const users: Auth[] = ['none', 'key', 'key', 'jwt', 'jwt', 'suspended', 'no-terms'];
  return admin ? [...users, 'admin', 'admin', 'admin', 'admin'] : users;
}
function authHeaders(auth: Auth): Record<string, string> {
  if (auth === 'key') return { 'x-api-key': key };
  if (auth === 'no-terms') return { 'x-api-key': termsKey };
  if (auth === 'jwt') return { authorization: `Bearer ${jwt}` };
  if (auth === 'suspended') return { authorization: `Bearer ${suspendedJwt}` };
  if (auth === 'admin') return { authorization: `Bearer ${ADMIN_TOKEN}` };
  return {};
}

const CONTENT_TYPES = [
  ...Array(12).fill('application/json'),
  'text/plain',
  'application/x-www-form-urlencoded',
  'application/json; charset=utf-16',
  'multipart/form-data; boundary=x',
  'application/xml',
  '',
];

/** Whole bodies that are not the object a route reads. */
const NOT_OBJECTS = ['', 'null', '[]', '[{}]', '"x"', '7', 'true', '{', '{"a":1,"a":2}', '\u0000', '{"a":"\\ud800"}'];

function a2aMessage(r: Rand): Record<string, unknown> {
  const id = (plain: string) => (r() % 3 === 0 ? pick(r, HOSTILE_STRINGS) : plain);
  return {
    messageId: id('m-1'),
    role: r() % 4 === 0 ? pick(r, HOSTILE_VALUES) : 'ROLE_USER',
    parts: r() % 4 === 0 ? pick(r, HOSTILE_VALUES) : [{ text: id('hello') }],
    ...(r() % 2 === 0 && { contextId: id('ctx-1') }),
    ...(r() % 2 === 0 && { taskId: id('task-1') }),
  };
}

/** A JSON-RPC call of each A2A method, its params' ids sometimes hostile. */
function a2aCall(r: Rand): Record<string, unknown> {
  const method = pick(r, ['message/send', 'SendMessage', 'tasks/get', 'GetTask', 'tasks/cancel', 'ListTasks']);
  const id = r() % 2 === 0 ? pick(r, HOSTILE_STRINGS) : 'task-1';
  const params = method.includes('end')
    ? { message: a2aMessage(r) }
    : method === 'ListTasks'
      ? { contextId: id }
      : { id };
  return { jsonrpc: '2.0', id: 1, method, params };
}

function probeFor(r: Rand, method: string, path: string, op: Operation): Probe {
  const params = op.parameters ?? [];
  const notes: string[] = [];
  const auth = pick(r, authsFor(op));
  notes.push(auth);
  // Path: each parameter plausible, or (half the time) one of them hostile.
  const pathParams = params.filter((p) => p.in === 'path');
  const hostilePath = pathParams.length > 0 && r() % 2 === 0 ? pick(r, pathParams).name : undefined;
  const url = path.replace(/\{(\w+)\}/g, (_, name: string) => {
    if (name !== hostilePath)
      return encodeURIComponent(plausible(method, path, name, pathParams.find((p) => p.name === name)?.schema));
    return pick(r, HOSTILE_SEGMENTS);
  });
  // Query: documented parameters, each plausible, hostile, repeated or left out; sometimes an unknown one.
  const query: string[] = [];
  for (const p of params.filter((q) => q.in === 'query')) {
    const roll = r() % 4;
    if (roll === 0) continue;
    const value =
      roll === 1 ? encodeURIComponent(plausible(method, path, p.name, p.schema)) : pick(r, HOSTILE_SEGMENTS);
    query.push(`${p.name}=${value}`);
    if (roll === 3) query.push(`${p.name}=${pick(r, HOSTILE_SEGMENTS)}`);
  }
  // One the document does not name; under A2A's binding, the SDK's own query parameters.
  const extra = path.startsWith('/a2a/rest') ? ['zz_extra', 'contextId', 'pageSize', 'historyLength'] : ['zz_extra'];
  if (r() % 3 < extra.length - 1) query.push(`${pick(r, extra)}=${pick(r, HOSTILE_SEGMENTS)}`);
  const headers: Record<string, string> = { ...authHeaders(auth) };
  // Documented headers (payments, keys, idempotency, signatures) with hostile values a client can send.
  for (const h of params.filter((q) => q.in === 'header'))
    if (r() % 2 === 0) headers[h.name.toLowerCase()] = pick(r, HOSTILE_HEADERS);
  // A2A's HTTP+JSON binding answers only clients naming version 1.0; now and then one names none.
  if (path.startsWith('/a2a') && r() % 4 !== 0) headers['a2a-version'] = '1.0';
  let body: string | undefined;
  const reads = method !== 'get';
  if (reads) {
    const schema = op.requestBody?.content['application/json']?.schema;
    // The A2A binding's bodies are the SDK's, not in the document: a message whose ids may be hostile.
    const base = path.startsWith('/a2a/rest')
      ? { message: a2aMessage(r), ...(r() % 2 === 0 && { configuration: { historyLength: pick(r, HOSTILE_VALUES) } }) }
      : path === '/a2a'
        ? a2aCall(r)
        : sample(schema);
    const roll = r() % 6;
    if (roll === 0) {
      body = pick(r, NOT_OBJECTS);
      notes.push('not-object');
    } else if (path.startsWith('/a2a')) {
      body = toJson(base);
    } else if (base && typeof base === 'object' && !Array.isArray(base)) {
      // Every property (and one the schema does not name) may be hostile; strings get string-shaped hostility often.
      const obj = { ...(base as Record<string, unknown>) };
      const props = resolve(schema)?.properties ?? {};
      for (const field of [...Object.keys(props), 'zz_extra']) {
        const roll2 = r() % 6;
        if (roll2 === 0 && field in obj) delete obj[field];
        else if (roll2 === 1) {
          obj[field] = pick(r, resolve(props[field])?.type === 'string' ? HOSTILE_STRINGS : HOSTILE_VALUES);
          notes.push(field);
        } else if (roll2 === 2 && !(field in obj) && props[field]) obj[field] = sampleProperty(field, props[field]!, 0);
      }
      body = toJson(obj);
    } else body = roll === 1 ? undefined : toJson(pick(r, HOSTILE_VALUES));
    const type = pick(r, CONTENT_TYPES);
    if (type) headers['content-type'] = type;
  }
  const qs = query.length ? `?${query.join('&')}` : '';
  return { method: method.toUpperCase(), url: `${url}${qs}`, headers, body, label: notes.join(' ') };
}

// ---- what every answer must be -------------------------------------------------------------------------------------

/** Errors any route may answer (the document's introduction, docs/http-api.md), with their code. */
const SHARED_ERRORS: Record<number, string> = { 413: 'payload_too_large', 431: 'headers_too_large' };
/** 5xx answers the contract gives on purpose (a paused or unconfigured provider, batch settlement not offered). */
const INTENDED_5XX = new Set([
  'withdraw_paused_noncustodial_migration',
  'provider_not_configured',
  'provider_unavailable',
  'sanctions_unavailable',
  'openclaw_not_configured',
  'not_implemented',
  'mail_unavailable',
]);
/** What leaks internals: stack frames, source paths, driver and runtime messages. */
const INTERNALS =
  /node_modules|\/src\/|\.ts:\d+|SQLITE_|syntax error|violates|invalid byte sequence|TypeError|ReferenceError|Cannot read prop|is not a function|undefined is not/;
const leaksInternals = (text: string) => STACK_FRAME.test(text) || INTERNALS.test(text);

/** JSON-RPC endpoints answer in their own envelope. */
const RPC_PATHS = new Set(['/a2a', '/mcp']);

async function check(
  method: string,
  path: string,
  op: Operation,
  p: Probe,
): Promise<{ status: number; fault?: string }> {
  const res = await fetch(server.url + p.url, {
    method: p.method,
    headers: p.headers,
    redirect: 'manual',
    ...(p.body !== undefined && { body: p.body }),
  });
  const text = await res.text();
  const where = `${p.method} ${p.url.slice(0, 120)} [${p.label}] ${(p.body ?? '').slice(0, 80)} -> ${res.status} ${text.slice(0, 200)}`;
  const documented = Object.keys(op.responses).map(Number);
  let body: { code?: unknown; error?: unknown } | undefined;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const status = res.status;
  const shared = SHARED_ERRORS[status] !== undefined && SHARED_ERRORS[status] === body?.code;
  if (!documented.includes(status) && !shared) return { status, fault: `undocumented status: ${where}` };
  if (status >= 500 && !INTENDED_5XX.has(body?.code as string)) return { status, fault: `5xx: ${where}` };
  if (leaksInternals(text)) return { status, fault: `internals: ${where}` };
  // JSON-RPC's internal error is the 500 of that envelope.
  if (RPC_PATHS.has(path) && (body?.error as { code?: unknown } | undefined)?.code === -32603)
    return { status, fault: `JSON-RPC internal error: ${where}` };
  const documentedTypes = Object.keys((op.responses[status] as { content?: object } | undefined)?.content ?? {});
  if (status >= 400 && !RPC_PATHS.has(path) && !documentedTypes.includes('text/html')) {
    // The device token endpoint answers RFC 8628's {error}; A2A's HTTP+JSON binding google.rpc.Status {error: {status}}
    // (the errors every route shares, such as malformed_json or rate_limited, keep the base shape there too).
    const code =
      path === '/auth/device/token'
        ? body?.error
        : path.startsWith('/a2a/rest')
          ? (body?.code ?? (body?.error as { status?: unknown } | undefined)?.status)
          : body?.code;
    if (typeof code !== 'string') return { status, fault: `error without a JSON code: ${where}` };
  }
  return { status };
}

/** Stored rows a refused request must not leave behind. */
const BUSINESS_TABLES = [
  'accounts',
  'api_keys',
  'account_settings',
  'audit_log',
  'consent_records',
  'credit_balances',
  'earnings_balances',
  'learnings',
  'learning_ratings',
  'ledger_entries',
  'payout_accounts',
  'purchases',
  'settlements',
  'terms_acceptances',
  'unlocks',
  'wallet_verifications',
  'withdrawal_proofs',
];
async function rowCounts(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const t of BUSINESS_TABLES)
    out[t] = Number((await server.db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${t}`))?.n);
  return out;
}

const OPERATIONS = Object.entries(doc.paths).flatMap(([path, item]) =>
  Object.keys(item)
    .filter((m) => METHODS.includes(m))
    .map((m) => [m, path] as const),
);

describe('seeded hostile requests against every documented operation', () => {
  it('covers the whole document', () => {
    expect(OPERATIONS.length).toBeGreaterThan(70);
  });
  for (const [method, path] of OPERATIONS)
    it(`${method.toUpperCase()} ${path}`, async () => {
      const op = doc.paths[path]![method]!;
      const r = seededRandom(hash(`${method} ${path}`));
      // Past the per-minute limits the operation before left behind (the session stays valid for 24 hours).
      server.clock.advance(61_000);
      const before = await rowCounts();
      const faults: string[] = [];
      let anySuccess = false;
      // An operation that takes no input at all gets a few requests: there is little to vary.
      const inputs = op.parameters?.some((p) => p.in !== 'header') || method !== 'get';
      for (let i = 0; i < (inputs ? REQUESTS_PER_OPERATION : 3); i++) {
        const p = probeFor(r, method, path, op);
        const { status, fault } = await check(method, path, op, p);
        if (fault) faults.push(fault);
        if (status < 400) anySuccess = true;
      }
      expect(faults).toEqual([]);
      if (method !== 'get' && !anySuccess) expect(await rowCounts()).toEqual(before);
    });
});

describe('U+0000 in every string an operation reads', () => {
  // Beside the seeded batches, each string field, path segment and query value carries a NUL once, in an otherwise
  // plausible request: PostgreSQL text cannot hold it, so a field reaching the store unchecked answers 500 there.
  for (const [method, path] of OPERATIONS)
    it(`${method.toUpperCase()} ${path}`, async () => {
      const op = doc.paths[path]![method]!;
      server.clock.advance(61_000);
      const params = op.parameters ?? [];
      const schema = op.requestBody?.content['application/json']?.schema;
      const base = sample(schema);
      const props = resolve(schema)?.properties ?? {};
      const url = (nulIn?: string) => {
        const p = path.replace(/\{(\w+)\}/g, (_, name: string) =>
          name === nulIn ? 'a%00b' : encodeURIComponent(plausible(method, path, name, undefined)),
        );
        const query = params
          .filter((q) => q.in === 'query')
          .map(
            (q) =>
              `${q.name}=${q.name === nulIn ? 'a%00b' : encodeURIComponent(plausible(method, path, q.name, q.schema))}`,
          );
        return query.length ? `${p}?${query.join('&')}` : p;
      };
      const probes: Probe[] = [];
      const headers = {
        ...authHeaders(op.security?.some((s) => 'AdminToken' in s) ? 'admin' : 'key'),
        'content-type': 'application/json',
      };
      for (const p of params.filter((q) => q.in !== 'header'))
        probes.push({
          method: method.toUpperCase(),
          url: url(p.name),
          headers,
          body: base === undefined || method === 'get' ? undefined : toJson(base),
          label: p.name,
        });
      if (base && typeof base === 'object')
        for (const [field, prop] of Object.entries(props))
          if (resolve(prop)?.type === 'string')
            probes.push({
              method: method.toUpperCase(),
              url: url(),
              headers,
              body: toJson({ ...base, [field]: 'a\u0000b' }),
              label: field,
            });
      const faults: string[] = [];
      for (const p of probes) {
        const { fault } = await check(method, path, op, p);
        if (fault) faults.push(fault);
      }
      expect(faults).toEqual([]);
    });
});

describe('the shared rules of docs/http-api.md on every path', () => {
  const paths = [...new Set(OPERATIONS.map(([, path]) => path))];
  const concrete = (path: string, method: string) =>
    path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(plausible(method, path, name, undefined)));
  // The Allow header found missing on every 405 (a client of GET /mcp is told which method to use by it).
  it('a method a path does not document answers 405 method_not_allowed, with Allow naming the documented ones', async () => {
    const faults: string[] = [];
    for (const path of paths) {
      const method = METHODS.find((m) => !(m in doc.paths[path]!))!;
      const res = await fetch(server.url + concrete(path, method), {
        method: method.toUpperCase(),
        headers: authHeaders('key'),
      });
      const body = (await res.json().catch(() => undefined)) as { code?: unknown } | undefined;
      if (res.status !== 405 || body?.code !== 'method_not_allowed') faults.push(`${method} ${path} -> ${res.status}`);
      const allowed = (res.headers.get('allow') ?? '').split(/,\s*/).filter((m) => m !== 'HEAD' && m !== '');
      const documented = Object.keys(doc.paths[path]!).map((m) => m.toUpperCase());
      if (allowed.sort().join() !== documented.sort().join())
        faults.push(`${method} ${path}: Allow ${res.headers.get('allow')}`);
    }
    expect(faults).toEqual([]);
  });
  it('a body over 1 MiB answers 413 payload_too_large, and is not half-written', async () => {
    const before = await rowCounts();
    const faults: string[] = [];
    const big = JSON.stringify({ a: 'y'.repeat(1024 * 1024) });
    for (const [method, path] of OPERATIONS.filter(([m]) => m !== 'get')) {
      const url = server.url + concrete(path, method);
      const headers = { ...authHeaders('key'), 'content-type': 'application/json' };
      const res = await fetch(url, { method: method.toUpperCase(), headers, body: big });
      const body = (await res.json().catch(() => undefined)) as { code?: unknown } | undefined;
      if (res.status !== 413 || body?.code !== 'payload_too_large') faults.push(`${method} ${path} -> ${res.status}`);
    }
    expect(faults).toEqual([]);
    expect(await rowCounts()).toEqual(before);
  });
});
