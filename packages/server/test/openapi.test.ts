import { createConfig, lintFromString } from '@redocly/openapi-core';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestServer, startTestServer } from '../../../test/support/server.js';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/**
 * Findings of Redocly's recommended ruleset that are true of the API by design. The read-only documents and counts
 * take no input a client can get wrong, so they have no 4XX answer; POST /extract only ever answers 410 and POST
 * /admin/settle 501.
 */
const EXEMPT = [
  ...[
    '/',
    '/health',
    '/categories',
    '/stats',
    '/knowledge/stats',
    '/openapi.json',
    '/.well-known/agent.json',
    '/.well-known/agent-card.json',
    '/.well-known/did.json',
    '/terms',
  ].map(
    (path) => `warn operation-4xx-response #/paths/${path.replaceAll('~', '~0').replaceAll('/', '~1')}/get/responses`,
  ),
  'warn operation-2xx-response #/paths/~1extract/post/responses',
  'warn operation-2xx-response #/paths/~1admin~1settle/post/responses',
  // A form post answered by a redirect (Post/Redirect/Get).
  'warn operation-2xx-response #/paths/~1device~1sign-out/post/responses',
];

let server: TestServer;
let doc: { openapi: string; info: { version: string }; paths: Record<string, Record<string, unknown>> };

beforeAll(async () => {
  server = await startTestServer();
  const res = await fetch(`${server.url}/openapi.json`);
  expect(res.status).toBe(200);
  doc = (await res.json()) as typeof doc;
});
afterAll(async () => {
  await server?.stop();
});

/** "GET /skill/{id}" for every operation in the document. */
const documented = () =>
  new Set(
    Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((m) => METHODS.includes(m))
        .map((m) => `${m.toUpperCase()} ${path}`),
    ),
  );

describe('GET /openapi.json', () => {
  it('is a valid OpenAPI 3.0 document declaring version 0.9.4', async () => {
    expect(doc.openapi).toBe('3.0.3');
    expect(doc.info.version).toBe('0.9.4');
    const result = await new Validator().validate(doc as unknown as Record<string, unknown>);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it("passes Redocly's recommended ruleset with no errors and no warnings", async () => {
    // The recommended ruleset ships inside @redocly/openapi-core: nothing is fetched.
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: 'openapi.json', config });
    const where = (p: (typeof problems)[number]) => p.location[0]?.pointer ?? '';
    const reported = problems.map((p) => `${p.severity} ${p.ruleId} ${where(p)}`);
    expect(reported.filter((r) => !EXEMPT.includes(r))).toEqual([]);
    // An exemption that no longer fires is stale: remove it.
    expect(EXEMPT.filter((e) => !reported.includes(e))).toEqual([]);
  });

  it('documents exactly the routes the Api helper mounted', () => {
    const mounted = new Set(server.built.api.mounted.map((r) => `${r.method.toUpperCase()} ${r.path}`));
    expect(mounted.size).toBeGreaterThan(0);
    expect([...documented()].sort()).toEqual([...mounted].sort());
  });

  it('documents a 400 on every operation that takes a path parameter, a query or a body (validation_error)', () => {
    const missing = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([m]) => METHODS.includes(m))
        .filter(([, op]) => {
          const o = op as { requestBody?: unknown; parameters?: { in: string }[]; responses: Record<string, unknown> };
          const input = o.requestBody !== undefined || (o.parameters ?? []).some((p) => p.in !== 'header');
          return input && !o.responses['400'];
        })
        .map(([m]) => `${m.toUpperCase()} ${path}`),
    );
    expect(missing).toEqual([]);
  });

  it('describes contributor_wallet on POST /learn as the identity it is once verified (SPEC rule 4)', () => {
    const schemas = (
      doc as unknown as {
        components: { schemas: Record<string, { properties: Record<string, { description?: string }> }> };
      }
    ).components.schemas;
    const description = schemas.LearnRequest!.properties.contributor_wallet!.description ?? '';
    expect(description).not.toMatch(/not an identity/);
    expect(description).toMatch(/is the identity.*verified/);
  });

  it('documents the Retry-After header on every 429', () => {
    const missing = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([m]) => METHODS.includes(m))
        .filter(([, op]) => {
          const r = (op as { responses: Record<string, { headers?: Record<string, unknown> }> }).responses['429'];
          return r !== undefined && !r.headers?.['Retry-After'];
        })
        .map(([m]) => `${m.toUpperCase()} ${path}`),
    );
    expect(missing).toEqual([]);
  });

  it('documents exactly the routes the Koa router serves', () => {
    const served = new Set(
      server.built.api.router.stack.flatMap((layer) =>
        layer.methods.filter((m) => m !== 'HEAD').map((m) => `${m} ${layer.path.replace(/:(\w+)/g, '{$1}')}`),
      ),
    );
    expect([...documented()].sort()).toEqual([...served].sort());
  });

  it('includes the public routes with their response schemas', () => {
    for (const path of [
      '/',
      '/health',
      '/categories',
      '/stats',
      '/.well-known/agent.json',
      '/.well-known/agent-card.json',
    ]) {
      const op = doc.paths[path]?.get as
        | { responses: Record<string, { content?: Record<string, { schema: unknown }> }> }
        | undefined;
      expect(op?.responses['200']?.content?.['application/json']?.schema, path).toBeTruthy();
    }
  });

  it('documents the answers the hardening added beyond the spec', () => {
    const op = (path: string, method: string) =>
      doc.paths[path]?.[method] as { responses: Record<string, { description: string }> };
    const schemas = (
      doc as unknown as { components: { schemas: Record<string, { properties: Record<string, { enum?: string[] }> }> } }
    ).components.schemas;
    expect(schemas.DiscoverResponse!.properties.search_mode!.enum).toEqual(['fused', 'lexical']);
    expect(op('/account/api-keys', 'post').responses['409']!.description).toMatch(/50 live keys.*api_key_limit/);
    expect(op('/account/api-keys', 'post').responses['429']).toBeDefined();
    expect(Object.keys(schemas.ApiKeyList!.properties)).toContain('next_cursor');
    expect(op('/extract/consent', 'post').responses['429']).toBeDefined();
    expect(op('/auth/magic-link', 'post').responses['403']).toBeDefined();
    expect(op('/auth/verify', 'post').responses['200']).toBeDefined();
    expect((doc.info as { description: string }).description).toMatch(/status 499 \(client_closed_request\)/);
  });
});
