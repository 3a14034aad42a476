import { A2AAgentCard, AgentCard, ERROR_CODES, JsonRpcMessage, z } from '@axle/sdk';
import type { AppDeps } from '../deps.js';
import { buildTime } from '../build-info.js';
import { A2A_PATH, A2A_REST_PATH, type CardInput, a2aAgentCard, agentCard } from '../domain/agent-card.js';
import { DomainError } from '../domain/errors.js';
import { clientIp } from '../http/client-ip.js';
import type { Api } from '../http/route.js';
import { buildOpenApiDocument } from '../openapi.js';

/** GET /openapi.json, the agent cards, and A2A JSON-RPC at the A2A card's url. */
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
    description:
      'The agent card as the contract defines it: capabilities is an array of strings, plus endpoints, payment and MCP tool schemas.',
    tags: ['Public'],
    responses: { 200: { description: 'Agent card', schema: AgentCard } },
    handler: () => AgentCard.parse(agentCard(cardInput())),
  });

  api.route({
    method: 'get',
    path: '/.well-known/agent-card.json',
    operationId: 'getA2AAgentCard',
    summary: 'Agent card (A2A AgentCard shape)',
    description:
      'The same agent in the shape A2A clients (protocol 0.3.0) parse: protocolVersion, capabilities object, input/output modes.',
    tags: ['Public'],
    responses: { 200: { description: 'A2A AgentCard', schema: A2AAgentCard } },
    handler: () => A2AAgentCard.parse(a2aAgentCard(cardInput())),
  });

  api.route({
    method: 'get',
    path: '/.well-known/did.json',
    operationId: 'getDidDocument',
    summary: 'DID document (did:web) with the key x402 receipts are signed with',
    description:
      'Each settled x402 unlock answers PAYMENT-RESPONSE with a receipt (offer/receipt extension): a JWS (EdDSA) ' +
      'whose kid is did:web:<host>#receipts-1. This document publishes that public key, so a buyer verifies a ' +
      'receipt offline.',
    tags: ['Public'],
    responses: { 200: { description: 'DID document', contentType: 'application/did+json' } },
    handler: () => deps.x402Extensions.didDocument(),
  });

  const a2aCard = () => A2AAgentCard.parse(a2aAgentCard(cardInput()));

  api.route({
    method: 'post',
    path: A2A_PATH,
    operationId: 'a2aJsonRpc',
    summary: 'A2A JSON-RPC: SendMessage and GetTask (1.0), message/send and tasks/get (0.3)',
    description:
      'A2A over JSON-RPC 2.0, as the A2A agent card declares: protocol 1.0 (SendMessage, GetTask, ListTasks) with ' +
      'the header A2A-Version: 1.0, protocol 0.3 (message/send, tasks/get) without it. A message with a text part ' +
      '("find a weather API") is answered by skill discovery or knowledge search, chosen from the text or an ' +
      'explicit skill (message metadata or a data part); the task completes at once with a data artifact of ' +
      'results. GetTask reads a task for a day; the task keeps only the text used as the query (its first 500 ' +
      'characters) and an explicit skill of the message. No streaming, no push notifications.',
    tags: ['Public'],
    body: JsonRpcMessage,
    responses: {
      200: { description: 'JSON-RPC response (errors too, as JSON-RPC error objects)', schema: JsonRpcMessage },
      400: { description: 'Not a JSON-RPC message' },
      429: { description: 'More than 60 requests a minute from one address' },
    },
    handler: async ({ body }, ctx) => {
      await deps.a2a.take(clientIp(ctx, deps.config.trustProxy));
      const result = await deps.a2a.jsonRpc(body, a2aCard(), ctx.get('a2a-version') || undefined);
      if (result && typeof result === 'object' && Symbol.asyncIterator in result) {
        throw new DomainError(
          ERROR_CODES.VALIDATION,
          'Streaming methods are not served (the card says streaming: false)',
        );
      }
      return result;
    },
  });

  // The HTTP+JSON binding: the SDK's REST router answers every method and path under A2A_REST_PATH
  // (/message:send, /tasks/{id}, /tasks/{id}:cancel, /tasks).
  const segments = [
    { path: `${A2A_REST_PATH}/{resource}`, params: z.object({ resource: z.string() }) },
    { path: `${A2A_REST_PATH}/{resource}/{id}`, params: z.object({ resource: z.string(), id: z.string() }) },
  ];
  for (const method of ['get', 'post'] as const) {
    for (const [i, { path, params }] of segments.entries()) {
      api.route({
        method,
        path,
        operationId: `a2aRest${method === 'get' ? 'Get' : 'Post'}${i ? 'Item' : ''}`,
        summary: `A2A 1.0 HTTP+JSON binding (${method.toUpperCase()})`,
        description:
          'A2A protocol 1.0 over HTTP+JSON, served by @a2a-js/sdk: POST /message:send, GET /tasks/{id}, GET /tasks ' +
          '(with contextId). The same agent and limits as JSON-RPC at /a2a; no streaming.',
        tags: ['Public'],
        params,
        responses: {
          200: { description: 'A2A 1.0 JSON (SendMessageResponse, Task, ListTasksResponse)' },
          400: { description: 'Invalid request (A2A error body)' },
          404: { description: 'Task not found (A2A error body)' },
          429: { description: 'More than 60 requests a minute from one address' },
        },
        handler: async (_input, ctx) => {
          await deps.a2a.take(clientIp(ctx, deps.config.trustProxy));
          // The body parser has read a JSON body already; the SDK's router takes it from req.body.
          const req = Object.assign(ctx.req, {
            url: ctx.originalUrl.slice(A2A_REST_PATH.length),
            ...(ctx.request.body !== undefined && { body: ctx.request.body }),
          });
          ctx.respond = false;
          await deps.a2a.rest(req, ctx.res, a2aCard());
        },
      });
    }
  }
}
