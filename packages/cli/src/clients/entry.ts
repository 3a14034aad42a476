/** How a client starts Axle's MCP server: the node binary, the axle-mcp script, key and server URL. */
export interface McpEntry {
  command: string;
  args: string[];
  env: { SVC_API_KEY: string; SVC_BASE_URL: string };
}

/** Whether a registered entry is one setup wrote: it hands an Axle key to the MCP server, or starts axle-mcp. */
export function isAxleEntry(value: unknown): boolean {
  if (!value || typeof value !== 'object') return false;
  const v = value as { command?: unknown; args?: unknown; env?: { SVC_API_KEY?: unknown } };
  if (typeof v.env?.SVC_API_KEY === 'string' && v.env.SVC_API_KEY.startsWith('axl_')) return true;
  const parts = [v.command, ...(Array.isArray(v.args) ? v.args : [])].filter((p): p is string => typeof p === 'string');
  return parts.some((p) => p.includes('axle-mcp'));
}
