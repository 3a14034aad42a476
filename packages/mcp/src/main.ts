import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { AxleClient } from '@axle/sdk';
import { createAxleMcpServer, invalidParams, misshapenParams } from '@axle/sdk/mcp';
import { readConfig } from './config.js';

// stdout carries the protocol and nothing else; diagnostics go to stderr.
const log = (line: string) => process.stderr.write(`axle-mcp: ${line}\n`);
const config = readConfig();
const server = createAxleMcpServer(new AxleClient({ baseUrl: config.baseUrl, apiKey: config.apiKey }), { log });
const transport = new StdioServerTransport();
await server.connect(transport);
// Params of the wrong shape are answered -32602 with a plain message before the SDK sees them.
const handle = transport.onmessage;
transport.onmessage = (message) => {
  const bad = misshapenParams(message);
  if (bad && 'id' in message) void transport.send(invalidParams(bad));
  else handle?.(message);
};
log(`serving 17 tools for ${config.baseUrl} (${config.apiKey ? 'with' : 'without'} an API key)`);
