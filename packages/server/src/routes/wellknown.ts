import { A2AAgentCard, AgentCard } from '@axle/sdk';
import type { AppDeps } from '../deps.js';
import { buildTime } from '../build-info.js';
import { type CardInput, a2aAgentCard, agentCard } from '../domain/agent-card.js';
import type { Api } from '../http/route.js';
import { buildOpenApiDocument } from '../openapi.js';

/** GET /openapi.json and the A2A agent cards. */
export function wellKnownRoutes(api: Api, deps: AppDeps): void {
  let doc: unknown;
  api.route({
    method: 'get',
    path: '/openapi.json',
    operationId: 'getOpenApiDocument',
    summary: 'OpenAPI 3.0 document of this API',
    tags: ['Public'],
    responses: { 200: { description: 'OpenAPI 3.0 document' } },
    // Generated on first request: every router is mounted by then.
    handler: () => (doc ??= buildOpenApiDocument(api, deps.baseUrl())),
  });

  const createdAt = buildTime().toISOString();
  // Built per request: the base URL is known only once the server listens, and routes mount after this module.
  const cardInput = (): CardInput => ({
    baseUrl: deps.baseUrl(),
    operator: deps.config.operator,
    facilitatorUrl: deps.config.facilitatorUrl,
    mounted: new Set(api.mounted.map((r) => `${r.method.toUpperCase()} ${r.path}`)),
    createdAt,
  });

  api.route({
    method: 'get',
    path: '/.well-known/agent.json',
    operationId: 'getAgentCard',
    summary: 'Agent card (contract shape)',
    description: 'The agent card as the contract defines it: capabilities is an array of strings, plus endpoints, payment and MCP tool schemas.',
    tags: ['Public'],
    responses: { 200: { description: 'Agent card', schema: AgentCard } },
    handler: () => AgentCard.parse(agentCard(cardInput())),
  });

  api.route({
    method: 'get',
    path: '/.well-known/agent-card.json',
    operationId: 'getA2AAgentCard',
    summary: 'Agent card (A2A AgentCard shape)',
    description: 'The same agent in the shape A2A clients (protocol 0.3.0) parse: protocolVersion, capabilities object, input/output modes.',
    tags: ['Public'],
    responses: { 200: { description: 'A2A AgentCard', schema: A2AAgentCard } },
    handler: () => A2AAgentCard.parse(a2aAgentCard(cardInput())),
  });
}
