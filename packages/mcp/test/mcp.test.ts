import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { MCP_TOOL_NAMES } from '@axle/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/support/server.js';

const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));

let api: TestServer;
let client: Client;

beforeAll(async () => {
  api = await startTestServer();
  // The real MCP SDK client drives the built `axle-mcp` over stdio, as an MCP host would.
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MAIN],
    env: { SVC_BASE_URL: api.url, PATH: process.env.PATH ?? '' },
    stderr: 'pipe',
  });
  client = new Client({ name: 'axle-test', version: '0.0.0' });
  await client.connect(transport);
});
afterAll(async () => {
  await client?.close();
  await api?.stop();
});

const json = (result: Awaited<ReturnType<Client['callTool']>>) =>
  JSON.parse((result.content as Array<{ type: string; text: string }>)[0]!.text);

describe('axle-mcp over stdio', () => {
  it('lists the 17 tools of the spec with their input schemas', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...MCP_TOOL_NAMES].sort());
    const contribute = tools.find((t) => t.name === 'svc_contribute')!;
    expect(contribute.inputSchema.required).toEqual(expect.arrayContaining(['title', 'body', 'category']));
  });

  it('answers svc_discover from the running server', async () => {
    const result = await client.callTool({ name: 'svc_discover', arguments: { query: 'weather forecast', limit: 3 } });
    expect(result.isError).toBeFalsy();
    const body = json(result);
    expect(body.results_count).toBe(body.results.length);
    expect(body.results.length).toBeGreaterThan(0);
    expect(body.results.length).toBeLessThanOrEqual(3);
    const skill = json(await client.callTool({ name: 'svc_skill', arguments: { id: body.results[0].id } }));
    expect(skill.id).toBe(body.results[0].id);
  });

  it('reports API errors as tool errors the agent can read', async () => {
    const result = await client.callTool({ name: 'svc_skill', arguments: { id: 'no-such-skill-anywhere' } });
    expect(result.isError).toBe(true);
    expect(json(result)).toMatchObject({ status: 404 });
  });

  it('refuses input that breaks the tool schema before calling the API', async () => {
    const result = await client.callTool({ name: 'svc_discover', arguments: { query: 'x', limit: 99 } });
    expect(result.isError).toBe(true);
  });
});
