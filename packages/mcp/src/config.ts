import { serverUrl } from '@axle/sdk';

/** The MCP server's only inputs: where the Axle API is and which key to present. */
export interface McpConfig {
  baseUrl: string;
  apiKey?: string;
}

/** The config from the environment; an SVC_BASE_URL or SVC_API_KEY that cannot be used is refused with what to give. */
export function readConfig(env: NodeJS.ProcessEnv = process.env): McpConfig {
  const baseUrl = env.SVC_BASE_URL || 'http://localhost:8402';
  const url = serverUrl(baseUrl);
  if (!url) throw new Error(`SVC_BASE_URL=${baseUrl} is not the URL of an Axle server, like http://localhost:8402`);
  // Not echoed: the password would reach the client's logs.
  if (url.username || url.password)
    throw new Error(
      'SVC_BASE_URL holds a user name or password, which requests cannot carry; give the key in SVC_API_KEY',
    );
  // Pasted keys come with a line break or spaces, which are no part of a key; anything else a header cannot carry.
  const apiKey = env.SVC_API_KEY?.trim() || undefined;
  if (apiKey && !/^[\x21-\x7e]+$/.test(apiKey))
    throw new Error('SVC_API_KEY holds characters an HTTP header cannot carry; an Axle key is axl_ and letters');
  return { baseUrl, apiKey };
}
