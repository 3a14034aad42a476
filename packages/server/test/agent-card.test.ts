import { z } from '@axle/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentCard } from '../src/domain/agent-card.js';
import { type TestServer, startTestServer } from '../../../test/support/server.js';

// The 17 tools named in the spec's "MCP server tools" table.
const SPEC_TOOLS = [
  'svc_discover',
  'svc_knowledge',
  'svc_unlock',
  'svc_contribute',
  'svc_categories',
  'svc_stats',
  'svc_verify_wallet',
  'svc_contributor',
  'svc_rate',
  'svc_skill',
  'svc_link_wallet',
  'svc_account_earnings',
  'svc_settlements',
  'svc_withdraw',
  'svc_accept_terms',
  'svc_review',
  'get_knowledge_stats',
];
const SPEC_SKILL_IDS = [
  'discover',
  'knowledge-search',
  'knowledge-contribute',
  'knowledge-unlock',
  'rate-learning',
  'contributor-dashboard',
  'autonomous-extraction',
];

/**
 * What an A2A client (protocol 0.3.0) requires of an AgentCard, written from the A2A specification
 * (AgentCard, AgentCapabilities, AgentSkill, AgentProvider, SecurityScheme) independently of the sdk schema.
 */
const A2ASecurityScheme = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('apiKey'),
    in: z.enum(['query', 'header', 'cookie']),
    name: z.string().min(1),
    description: z.string().optional(),
  }),
  z.object({
    type: z.literal('http'),
    scheme: z.string().min(1),
    bearerFormat: z.string().optional(),
    description: z.string().optional(),
  }),
  z.object({ type: z.literal('oauth2'), flows: z.record(z.string(), z.unknown()) }),
  z.object({ type: z.literal('openIdConnect'), openIdConnectUrl: z.string().url() }),
  z.object({ type: z.literal('mutualTLS') }),
]);
const A2ACardRequired = z.object({
  protocolVersion: z.string().regex(/^\d+\.\d+\.\d+$/),
  name: z.string().min(1),
  description: z.string().min(1),
  url: z.string().url(),
  version: z.string().min(1),
  preferredTransport: z.enum(['JSONRPC', 'GRPC', 'HTTP+JSON']).optional(),
  provider: z.object({ organization: z.string().min(1), url: z.string().url() }).optional(),
  capabilities: z.object({
    streaming: z.boolean().optional(),
    pushNotifications: z.boolean().optional(),
    stateTransitionHistory: z.boolean().optional(),
  }),
  securitySchemes: z.record(z.string(), A2ASecurityScheme).optional(),
  security: z.array(z.record(z.string(), z.array(z.string()))).optional(),
  defaultInputModes: z.array(z.string().min(1)).min(1),
  defaultOutputModes: z.array(z.string().min(1)).min(1),
  skills: z
    .array(
      z.object({
        id: z.string().min(1),
        name: z.string().min(1),
        description: z.string().min(1),
        tags: z.array(z.string()),
        examples: z.array(z.string()).optional(),
      }),
    )
    .min(1),
});

let server: TestServer;
const json = async (path: string) => {
  const res = await fetch(server.url + path);
  expect(res.status, path).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/application\/json/);
  return (await res.json()) as Record<string, any>;
};

beforeAll(async () => {
  server = await startTestServer({
    AXLE_OPERATOR: 'Test Operator',
    AXLE_FACILITATOR_URL: 'http://127.0.0.1:9/facilitator',
  });
});
afterAll(async () => {
  await server?.stop();
});

describe('GET /.well-known/agent.json', () => {
  it('carries every field of the spec with the spec values', async () => {
    const card = await json('/.well-known/agent.json');
    expect(Object.keys(card).sort()).toEqual(
      [
        'name',
        'description',
        'version',
        'url',
        'capabilities',
        'skills',
        'authentication',
        'endpoints',
        'protocols',
        'mcp',
        'operator',
        'created_at',
        'spec_version',
      ].sort(),
    );
    expect(card.name).toBe('Axle');
    expect(card.description.length).toBeGreaterThan(20);
    expect(card.version).toBe('0.9.23');
    expect(card.spec_version).toBe('a2a/0.1');
    expect(card.url).toBe(server.url);
    expect(card.capabilities).toEqual([
      'skill-discovery',
      'knowledge-marketplace',
      'agent-to-agent-payments',
      'revenue-sharing',
    ]);
    expect(card.protocols).toEqual(['http', 'mcp']);
    expect(card.operator).toBe('Test Operator');
    expect(Date.parse(card.created_at)).not.toBeNaN();
  });

  it('lists the seven skills with id, name, description, tags and examples', async () => {
    const { skills } = await json('/.well-known/agent.json');
    expect(skills.map((s: { id: string }) => s.id)).toEqual(SPEC_SKILL_IDS);
    for (const s of skills) {
      expect(Object.keys(s).sort()).toEqual(['description', 'examples', 'id', 'name', 'tags']);
      expect(s.tags.length).toBeGreaterThan(0);
      expect(s.examples.length).toBeGreaterThan(0);
    }
  });

  it('describes x402 payment in USDC on Base', async () => {
    const { authentication } = await json('/.well-known/agent.json');
    expect(authentication).toMatchObject({
      method: 'x402',
      network: 'eip155:8453',
      asset: 'USDC',
      asset_contract: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
      facilitator: 'http://127.0.0.1:9/facilitator',
    });
    expect(authentication.description).toMatch(/X-Payment/);
    expect(() => new URL(authentication.protocol_spec)).not.toThrow();
  });

  it('lists only endpoints the server serves, free with method and description, paid with a price', async () => {
    const { endpoints } = await json('/.well-known/agent.json');
    expect(endpoints.base_url).toBe(server.url);
    const mounted = new Set(server.built.api.mounted.map((r) => `${r.method.toUpperCase()} ${r.path}`));
    const listed = [...endpoints.free, ...endpoints.paid].map(
      (e: { method: string; path: string }) => `${e.method} ${e.path}`,
    );
    for (const e of listed) expect(mounted.has(e), e).toBe(true);
    for (const e of [
      'GET /',
      'GET /health',
      'GET /categories',
      'GET /stats',
      'GET /openapi.json',
      'GET /.well-known/agent.json',
    ]) {
      expect(listed, e).toContain(e);
    }
    for (const e of endpoints.free) expect(Object.keys(e).sort()).toEqual(['description', 'method', 'path']);
    for (const e of endpoints.paid) expect(e.price_usd).toBeGreaterThanOrEqual(0.05);
  });

  it('publishes the 17 MCP tools with an input JSON schema each', async () => {
    const { mcp } = await json('/.well-known/agent.json');
    expect(mcp.package).toBe('@axle/mcp');
    expect(mcp.description).toBeTruthy();
    expect(mcp.note).toMatch(/axle-mcp/);
    expect(mcp.tools).toEqual(SPEC_TOOLS);
    expect(Object.keys(mcp.tool_schemas).sort()).toEqual([...SPEC_TOOLS].sort());
    for (const name of SPEC_TOOLS) expect(mcp.tool_schemas[name].type, name).toBe('object');
    const contribute = mcp.tool_schemas.svc_contribute;
    expect([...contribute.required].sort()).toEqual(['body', 'category', 'title']);
    for (const field of ['title', 'body', 'category', 'contributor_agent'])
      expect(contribute.properties[field].type).toBe('string');
    expect(mcp.tool_schemas.svc_rate.properties.helpfulness).toMatchObject({ type: 'integer', minimum: 1, maximum: 5 });
  });
});

describe('GET /.well-known/agent-card.json', () => {
  it('satisfies the A2A AgentCard required fields', async () => {
    const card = await json('/.well-known/agent-card.json');
    const parsed = A2ACardRequired.safeParse(card);
    expect(parsed.error?.issues ?? []).toEqual([]);
    expect(card.protocolVersion).toBe('0.3.0');
    expect(card.capabilities).toEqual({ streaming: false, pushNotifications: false, stateTransitionHistory: false });
    expect(card.defaultInputModes).toEqual(['text/plain', 'application/json']);
    expect(card.defaultOutputModes).toEqual(['application/json', 'text/plain']);
    // The transport it declares is the one served (see a2a.test.ts).
    expect(card).toMatchObject({ preferredTransport: 'JSONRPC', url: `${server.url}/a2a` });
    expect(card.provider).toEqual({ organization: 'Test Operator', url: server.url });
    expect(card.securitySchemes.apiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-API-Key' });
  });

  it('describes the same agent as agent.json', async () => {
    const [a2a, card] = await Promise.all([json('/.well-known/agent-card.json'), json('/.well-known/agent.json')]);
    expect(a2a).toMatchObject({
      name: card.name,
      description: card.description,
      url: `${card.url}/a2a`,
      version: card.version,
    });
    expect(a2a.skills).toEqual(card.skills);
  });

  it('the required-field schema rejects the contract-shaped card (string capabilities, no modes)', async () => {
    expect(A2ACardRequired.safeParse(await json('/.well-known/agent.json')).success).toBe(false);
  });
});

describe('AXLE_BASE_URL', () => {
  it('is the url of both cards', async () => {
    const other = await startTestServer({ AXLE_BASE_URL: 'https://axle.example.org/' });
    try {
      const card = (await (await fetch(`${other.url}/.well-known/agent.json`)).json()) as Record<string, any>;
      const a2a = (await (await fetch(`${other.url}/.well-known/agent-card.json`)).json()) as Record<string, any>;
      expect(card.url).toBe('https://axle.example.org');
      expect(card.endpoints.base_url).toBe('https://axle.example.org');
      expect(card.authentication.facilitator).toBe('https://axle.example.org');
      expect(a2a.url).toBe('https://axle.example.org/a2a');
    } finally {
      await other.stop();
    }
  });
});

describe('agentCard (pure)', () => {
  const input = { baseUrl: 'http://h', operator: 'o', createdAt: '2026-01-01T00:00:00.000Z' };
  it('advertises the paid unlock at the price floor only once the route is mounted', () => {
    expect(agentCard({ ...input, mounted: new Set(['GET /health']) }).endpoints).toMatchObject({
      free: [{ path: '/health' }],
      paid: [],
    });
    const paid = agentCard({ ...input, mounted: new Set(['GET /knowledge/{id}']) }).endpoints.paid;
    expect(paid).toEqual([expect.objectContaining({ method: 'GET', path: '/knowledge/{id}', price_usd: 0.05 })]);
  });
});
