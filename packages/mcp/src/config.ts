/** The MCP server's only inputs: where the Axle API is and which key to present. */
export interface McpConfig {
  baseUrl: string;
  apiKey?: string;
}

/** The config from the environment; an SVC_BASE_URL that is not an http(s) URL is refused with what to give. */
export function readConfig(env: NodeJS.ProcessEnv = process.env): McpConfig {
  const baseUrl = env.SVC_BASE_URL || 'http://localhost:8402';
  const url = URL.canParse(baseUrl) ? new URL(baseUrl) : undefined;
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.host === '')
    throw new Error(`SVC_BASE_URL=${baseUrl} is not the URL of an Axle server, like http://localhost:8402`);
  return { baseUrl, apiKey: env.SVC_API_KEY || undefined };
}
