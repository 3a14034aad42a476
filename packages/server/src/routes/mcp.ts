import { AxleClient, ERROR_CODES, JsonRpcMessage, LIMITS, McpHttpRequest } from '@axle/sdk';
import type { Context } from 'koa';
import type { AppDeps } from '../deps.js';
import { DomainError } from '../domain/errors.js';
import { addressLimit } from '../http/address-limit.js';
import { clientIp } from '../http/client-ip.js';
import { FORWARD_TOKEN_HEADER, FORWARDED_CLIENT_HEADER } from '../http/forwarded-client.js';
import type { Api } from '../http/route.js';

/** The MCP endpoint's path; its JSON bodies may nest deeper than other routes' (see LIMITS.mcpHttp). */
export const MCP_PATH = '/mcp';

/** The API key of the request: X-API-Key, or Authorization: Bearer axl_… (a session token is refused here). */
function presentedKey(ctx: Context): string | undefined {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('authorization'))?.[1];
  if (bearer && !bearer.startsWith('axl_')) {
    throw new DomainError(ERROR_CODES.UNAUTHORIZED, 'MCP over HTTP takes an API key: Authorization: Bearer axl_…');
  }
  return ctx.get('x-api-key') || bearer;
}

/**
 * POST /mcp: the 17 MCP tools over Streamable HTTP, stateless (a server and transport per request, no session
 * kept between requests, so any instance answers any request and nothing piles up in memory). The tools call
 * this instance's HTTP API on loopback with the caller's key and address (forwarded-client.ts), so every route's
 * checks, limits and errors apply exactly as to a direct call. GET and DELETE (server-initiated streams, session
 * end) answer 405.
 */
export function mcpRoutes(api: Api, deps: AppDeps): void {
  const { identity, rateLimiter, config } = deps;
  api.route({
    method: 'post',
    path: MCP_PATH,
    operationId: 'mcp',
    summary: 'MCP over Streamable HTTP: the 17 tools',
    description:
      'JSON-RPC 2.0 messages of the Model Context Protocol (initialize, tools/list, tools/call…), answered as JSON. ' +
      'Stateless: no Mcp-Session-Id. Send the API key as Authorization: Bearer axl_… (or X-API-Key); without one ' +
      'the free tools work and svc_unlock answers with x402 payment options (pay with _meta["x402/payment"]). ' +
      `${LIMITS.perAddress.mcp.perMinute} requests per client address and minute (a batch counts once).`,
    tags: ['MCP'],
    // The key is optional (free tools, x402 payments), as on the search routes.
    security: [],
    before: [
      identity.optionalKey(),
      addressLimit(rateLimiter, config.trustProxy, { name: 'mcp', perMinute: LIMITS.perAddress.mcp.perMinute }),
    ],
    body: McpHttpRequest,
    responses: {
      200: { description: 'JSON-RPC response(s)', schema: JsonRpcMessage },
      202: { description: 'Notifications and responses only: accepted, no body' },
      400: { description: 'Not JSON-RPC, nested too deep, or a batch over the limit' },
      401: { description: 'Unknown API key, or a session token instead of a key' },
      406: { description: 'Accept must include application/json and text/event-stream' },
      429: { description: 'Too many requests from this address (Retry-After)' },
    },
    handler: async (_input, ctx) => {
      // Imported at the first request, not at start: a server nobody reaches over MCP never holds the MCP SDK.
      const [{ createAxleMcpServer, invalidParams, misshapenParams }, { StreamableHTTPServerTransport }] =
        await Promise.all([import('@axle/sdk/mcp'), import('@modelcontextprotocol/sdk/server/streamableHttp.js')]);
      // Params of the wrong shape: -32602 with a plain message (a batch holding such a message: 400).
      const body = ctx.request.body as unknown;
      if (Array.isArray(body)) {
        for (const [index, m] of body.entries()) {
          const bad = misshapenParams(m);
          if (bad)
            throw new DomainError(ERROR_CODES.VALIDATION, `Invalid request: ${bad.path}: ${bad.message}`, {
              field: `body.${index}.${bad.path}`,
            });
        }
      } else {
        const bad = misshapenParams(body);
        if (bad) return invalidParams(bad);
      }
      const client = new AxleClient({
        baseUrl: deps.localUrl(),
        apiKey: presentedKey(ctx),
        headers: {
          [FORWARDED_CLIENT_HEADER]: clientIp(ctx, deps.config.trustProxy),
          [FORWARD_TOKEN_HEADER]: deps.forwardToken,
        },
      });
      const server = createAxleMcpServer(client, {
        publicBaseUrl: deps.baseUrl(),
        log: (line) => ctx.state.log.info({ mcp: line }, 'mcp tool'),
      });
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      ctx.respond = false;
      const finished = new Promise<void>((resolve) => ctx.res.once('close', resolve));
      try {
        await server.connect(transport);
        await transport.handleRequest(ctx.req, ctx.res, ctx.request.body);
        await finished;
      } finally {
        await transport.close();
        await server.close();
      }
    },
  });
}
