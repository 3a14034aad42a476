import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { AxleApiError, AxleClient, MCP_TOOLS, MCP_TOOL_NAMES, VERSIONS } from '@axle/sdk';
import { TOOL_CALLS } from './calls.js';
import type { McpConfig } from './config.js';

const text = (value: unknown) => [{ type: 'text' as const, text: JSON.stringify(value, null, 2) }];

/** An MCP server whose 17 tools are the contract's tool schemas, each answered by the HTTP API. */
export function createMcpServer(config: McpConfig): McpServer {
  const client = new AxleClient({ baseUrl: config.baseUrl, apiKey: config.apiKey });
  const server = new McpServer({ name: 'axle', version: VERSIONS.agentCard });
  for (const name of MCP_TOOL_NAMES) {
    const tool = MCP_TOOLS[name];
    server.registerTool(name, { description: tool.description, inputSchema: tool.input }, async (args: Record<string, unknown>) => {
      const call = TOOL_CALLS[name](args);
      try {
        const body = await client.request(call.method, call.path, { body: call.body, query: call.query });
        return { content: text(body) };
      } catch (err) {
        // API errors (402, 404, 409…) are answers the agent can act on, not protocol failures.
        const detail = err instanceof AxleApiError ? { status: err.status, ...err.body } : { error: (err as Error).message };
        return { isError: true, content: text(detail) };
      }
    });
  }
  return server;
}
