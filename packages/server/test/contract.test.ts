import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestServer, startTestServer } from '../../../test/support/server.js';
import { jwtFor, newBuyer } from './money-helpers.js';

/**
 * Real answers over HTTP, held against the contract (SPEC.md) and against the schemas the server itself serves at
 * /openapi.json: a client generated from the document must be able to read every answer the server gives.
 */

const ADMIN = 'admin-token-0123456789-abcdefghij';
const READ = 'read-token-0123456789-abcdefghijk';

let server: TestServer;
let doc: { paths: Record<string, Record<string, { responses: Record<string, Response3> }>> };
type Response3 = { content?: Record<string, { schema: unknown }> };
const ajv = new Ajv({ strict: false, allErrors: true });
addFormats(ajv);

/** OpenAPI 3.0 writes exclusive bounds as booleans beside minimum/maximum; JSON Schema draft 7 as the bound. */
function toDraft7(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toDraft7);
  if (!node || typeof node !== 'object') return node;
  const o = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, toDraft7(v)])) as Record<string, unknown>;
  for (const [flag, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    if (o[flag] === true) {
      o[flag] = o[bound];
      delete o[bound];
    } else if (o[flag] === false) delete o[flag];
  }
  return o;
}

/** The documented answer for (method, path, status), compiled; undefined when the status is not documented. */
function documented(method: string, path: string, status: number): ValidateFunction | null | undefined {
  const r = doc.paths[path]?.[method]?.responses[String(status)];
  if (!r) return undefined;
  const schema = r.content?.['application/json']?.schema;
  if (!schema) return null;
  const esc = (s: string) => s.replaceAll('~', '~0').replaceAll('/', '~1');
  const ref = `doc#/paths/${esc(path)}/${method}/responses/${status}/content/application~1json/schema`;
  return ajv.getSchema(ref) ?? ajv.compile({ $ref: ref });
}

/** Sends the request, then asserts the status is documented for the operation and the body matches its schema. */
async function conforming(
  method: string,
  path: string,
  template: string,
  init: { body?: unknown; headers?: Record<string, string> } = {},
) {
  const res = await fetch(server.url + path, {
    method: method.toUpperCase(),
    headers: { ...(init.body !== undefined && { 'content-type': 'application/json' }), ...init.headers },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const body = await res.json();
  const validate = documented(method, template, res.status);
  expect(validate, `${method.toUpperCase()} ${template} ${res.status} is documented`).not.toBeUndefined();
  if (validate)
    expect(validate(body) ? [] : validate.errors, `${method.toUpperCase()} ${template} ${res.status}`).toEqual([]);
  return { status: res.status, body: body as Record<string, unknown> };
}

beforeAll(async () => {
  server = await startTestServer({ AXLE_ADMIN_TOKEN: ADMIN, AXLE_ADMIN_READ_TOKEN: READ });
  doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as typeof doc;
  ajv.addSchema(toDraft7(doc) as object, 'doc');
});
afterAll(async () => {
  await server?.stop();
});

describe('GET /stats against the contract', () => {
  it('carries every field the SPEC lists: catalog_size, categories, skills_catalog_size, skills_categories, types, queries, uptime, version', async () => {
    const { status, body } = await conforming('get', '/stats', '/stats');
    expect(status).toBe(200);
    for (const field of [
      'catalog_size',
      'categories',
      'skills_catalog_size',
      'skills_categories',
      'types',
      'queries',
      'uptime',
      'version',
    ])
      expect(body, field).toHaveProperty(field);
    expect(body.catalog_size).toBe(body.learnings_count);
    expect(Number.isInteger(body.catalog_size)).toBe(true);
  });
});

describe('real answers match the schemas /openapi.json serves', () => {
  const learning = {
    title: 'Foo API cursor encoding pitfall',
    body: 'When calling the Foo API with pagination, the cursor must be URL-encoded or the next page repeats the first.',
    category: 'web-interaction',
    tags: ['pagination'],
    task_context: 'paging through Foo API results',
    outcome: 'workaround',
  };

  it('POST /learn 400: a validation failure as well as CATEGORY_OUT_OF_SCOPE', async () => {
    const { key } = await newBuyer(server);
    const headers = { 'x-api-key': key };
    const invalid = await conforming('post', '/learn', '/learn', { headers, body: { ...learning, unlock_price: 51 } });
    expect(invalid).toMatchObject({ status: 400, body: { code: 'validation_error', field: 'body.unlock_price' } });
    const short = await conforming('post', '/learn', '/learn', { headers, body: { ...learning, title: 'short' } });
    expect(short).toMatchObject({ status: 400, body: { code: 'validation_error' } });
    const scope = await conforming('post', '/learn', '/learn', {
      headers,
      body: { ...learning, category: 'communication' },
    });
    expect(scope).toMatchObject({ status: 400, body: { code: 'CATEGORY_OUT_OF_SCOPE' } });
  });

  it('POST /auth/device/token 400: a body without device_code as well as the RFC 8628 errors', async () => {
    const missing = await conforming('post', '/auth/device/token', '/auth/device/token', { body: {} });
    expect(missing).toMatchObject({ status: 400, body: { code: 'validation_error' } });
    const unknown = await conforming('post', '/auth/device/token', '/auth/device/token', {
      body: { device_code: 'nope' },
    });
    expect(unknown).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('POST /admin/settle: 403 insufficient_scope for the read token, 501 for the admin token', async () => {
    const read = await conforming('post', '/admin/settle', '/admin/settle', {
      headers: { authorization: `Bearer ${READ}` },
    });
    expect(read).toMatchObject({ status: 403, body: { code: 'insufficient_scope' } });
    const admin = await conforming('post', '/admin/settle', '/admin/settle', {
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    expect(admin.status).toBe(501);
  });

  it('a malformed path id, query or body is a documented 400 on every route that validates it', async () => {
    const { key } = await newBuyer(server);
    const jwt = await jwtFor(server, (await newBuyer(server)).accountId);
    const admin = { authorization: `Bearer ${ADMIN}` };
    const cases: [string, string, string, { body?: unknown; headers?: Record<string, string> }][] = [
      ['get', '/knowledge/abc', '/knowledge/{id}', {}],
      ['get', `/skill/${'x'.repeat(300)}`, '/skill/{id}', {}],
      [
        'post',
        '/account/pending/abc/approve',
        '/account/pending/{id}/approve',
        { headers: { 'x-api-key': key }, body: {} },
      ],
      ['post', '/account/pending/abc/reject', '/account/pending/{id}/reject', { headers: { 'x-api-key': key } }],
      ['post', '/admin/review/abc/reject', '/admin/review/{id}/reject', { headers: admin }],
      ['get', '/admin/review?limit=0', '/admin/review', { headers: admin }],
      ['get', '/admin/accounts/abc', '/admin/accounts/{id}', { headers: admin }],
      ['post', '/admin/accounts/abc/suspend', '/admin/accounts/{id}/suspend', { headers: admin }],
      ['post', '/admin/settlements/abc/reconcile', '/admin/settlements/{id}/reconcile', { headers: admin }],
      [
        'post',
        '/account/api-keys',
        '/account/api-keys',
        { headers: { authorization: `Bearer ${jwt}` }, body: { name: 5 } },
      ],
      ['delete', '/account/api-keys/abc', '/account/api-keys/{id}', { headers: { authorization: `Bearer ${jwt}` } }],
      ['post', '/wallet/challenge', '/wallet/challenge', { body: { wallet: 'nope' } }],
    ];
    for (const [method, path, template, init] of cases) {
      const res = await conforming(method, path, template, init);
      expect(res, `${method} ${path}`).toMatchObject({ status: 400, body: { code: 'validation_error' } });
    }
  });

  it('POST /learn past the per-account limit: 429 with Retry-After, both as documented', async () => {
    const { key } = await newBuyer(server);
    let last: Response | undefined;
    for (let i = 0; i < 21; i++) {
      last = await fetch(`${server.url}/learn`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify({ ...learning, title: `Limit probe learning ${i}`, body: `${learning.body} Case ${i}.` }),
      });
    }
    expect(last!.status).toBe(429);
    const seconds = Number(last!.headers.get('retry-after'));
    expect(seconds).toBeGreaterThan(0);
    const declared = doc.paths['/learn']!.post!.responses['429'] as { headers?: Record<string, unknown> };
    expect(declared.headers?.['Retry-After']).toBeDefined();
    const validate = documented('post', '/learn', 429)!;
    expect(validate(await last!.json())).toBe(true);
  });
});
