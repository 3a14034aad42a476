/** The MCP server's only inputs: where the Axle API is and which key to present. */
export interface McpConfig {
  baseUrl: string;
  apiKey?: string;
}

export function readConfig(env: NodeJS.ProcessEnv = process.env): McpConfig {
  return {
    baseUrl: env.SVC_BASE_URL || 'http://localhost:8402',
    apiKey: env.SVC_API_KEY || undefined,
  };
}
