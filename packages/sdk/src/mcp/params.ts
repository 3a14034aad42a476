import {
  CallToolRequestSchema,
  InitializeRequestSchema,
  type JSONRPCMessage,
  ListToolsRequestSchema,
  PingRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';

// The MCP SDK answers a request whose params are not of its method's shape -32603 (an internal error) with its
// validator's JSON dump as the message; both transports check the shape first and answer -32602, plainly.

const SCHEMAS: Record<
  string,
  { safeParse(v: unknown): { error?: { issues: Array<{ path: PropertyKey[]; message: string }> } } }
> = {
  initialize: InitializeRequestSchema,
  'tools/list': ListToolsRequestSchema,
  'tools/call': CallToolRequestSchema,
  ping: PingRequestSchema,
};

/** Where and why a request's params are not of its method's shape, or undefined when they are (or it is no such request). */
export function misshapenParams(message: unknown): { id: unknown; path: string; message: string } | undefined {
  if (!message || typeof message !== 'object') return undefined;
  const { method, id } = message as { method?: unknown; id?: unknown };
  const schema = typeof method === 'string' ? SCHEMAS[method] : undefined;
  const issue = schema?.safeParse(message).error?.issues[0];
  return issue && { id, path: issue.path.join('.'), message: issue.message };
}

/** The -32602 answer to a request `misshapenParams` found fault with. */
export const invalidParams = (bad: { id: unknown; path: string; message: string }): JSONRPCMessage => ({
  jsonrpc: '2.0',
  id: bad.id as string | number,
  error: { code: -32602, message: `Invalid params: ${bad.path}: ${bad.message}` },
});
