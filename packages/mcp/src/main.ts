import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { AxleClient } from '@axle/sdk';
import { createAxleMcpServer } from '@axle/sdk/mcp';
import { readConfig } from './config.js';

// stdout carries the protocol and nothing else; diagnostics go to stderr.
const log = (line: string) => process.stderr.write(`axle-mcp: ${line}\n`);
const config = readConfig();
const server = createAxleMcpServer(new AxleClient({ baseUrl: config.baseUrl, apiKey: config.apiKey }), { log });
await server.connect(new StdioServerTransport());
log(`serving 17 tools for ${config.baseUrl} (${config.apiKey ? 'with' : 'without'} an API key)`);
