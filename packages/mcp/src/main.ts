import { PassThrough } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { AxleClient } from '@axle/sdk';
import { createAxleMcpServer } from '@axle/sdk/mcp';
import { type McpConfig, readConfig } from './config.js';
import { MAX_LINE_BYTES, oversizeAnswer, readLines, vetLine } from './lines.js';

// stdout carries the protocol and nothing else; diagnostics go to stderr.
const log = (line: string) => process.stderr.write(`axle-mcp: ${line}\n`);
let config: McpConfig;
try {
  config = readConfig();
} catch (err) {
  log((err as Error).message);
  process.exit(1);
}
const server = createAxleMcpServer(new AxleClient({ baseUrl: config.baseUrl, apiKey: config.apiKey }), { log });
// stdin is read here, not by the transport: a line it cannot take is answered with a JSON-RPC error (the SDK drops it
// unanswered, and closes on one over its buffer), and only vetted messages reach the server.
const transport = new StdioServerTransport(new PassThrough(), process.stdout);
await server.connect(transport);
process.stdin.on('error', (err) => log(`stdin: ${err.message}`));
readLines(process.stdin, MAX_LINE_BYTES, {
  line(text) {
    const vetted = vetLine(text);
    if (vetted && 'answer' in vetted) void transport.send(vetted.answer);
    else if (vetted) transport.onmessage?.(vetted.message);
  },
  oversize() {
    log(`a message over ${MAX_LINE_BYTES >> 20} MiB was dropped`);
    void transport.send(oversizeAnswer());
  },
});
log(`serving 17 tools for ${config.baseUrl} (${config.apiKey ? 'with' : 'without'} an API key)`);
