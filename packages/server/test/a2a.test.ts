import { randomUUID } from 'node:crypto';
import type { DataPart, Task } from '@a2a-js/sdk';
import { type Client, ClientFactory } from '@a2a-js/sdk/client';
import { CONTENT_ADVISORY, CONTENT_TRUST, UNTRUSTED_NOTICE, untrustedText } from '@axle/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeRequest } from '../src/services/a2a.js';
import { learningsStore } from '../src/store/learnings.js';
import { startTestServer, type TestServer } from '../../../test/support/server.js';
import { seedLearning } from './money-helpers.js';

let server: TestServer;
let client: Client;

const userMessage = (text: string, extra: Record<string, unknown> = {}) => ({
  message: {
    kind: 'message' as const,
    role: 'user' as const,
    messageId: randomUUID(),
    parts: [{ kind: 'text' as const, text }],
    ...extra,
  },
});
const textOf = (task: Task) =>
  task.status.message!.parts.flatMap((p) => (p.kind === 'text' ? [p.text] : [])).join('\n');
const dataOf = (task: Task) => (task.artifacts![0]!.parts[0] as DataPart).data as Record<string, any>;

beforeAll(async () => {
  server = await startTestServer();
  // The official client resolves /.well-known/agent-card.json and picks the transport the card declares.
  client = await new ClientFactory().createFromUrl(server.url);
});
afterAll(() => server?.stop());

describe('A2A JSON-RPC with @a2a-js/sdk', () => {
  it('the card declares the JSON-RPC transport it serves', async () => {
    const card = (await (await fetch(`${server.url}/.well-known/agent-card.json`)).json()) as Record<string, any>;
    expect(card).toMatchObject({ protocolVersion: '0.3.0', preferredTransport: 'JSONRPC', url: `${server.url}/a2a` });
    expect(card.additionalInterfaces).toEqual([{ url: `${server.url}/a2a`, transport: 'JSONRPC' }]);
  });

  it('message/send "find a weather API" completes a task with a skills data artifact; tasks/get reads it', async () => {
    const task = (await client.sendMessage(userMessage('find a weather API'))) as Task;
    expect(task.kind).toBe('task');
    expect(task.status.state).toBe('completed');
    const data = dataOf(task);
    expect(data.skill).toBe('discover');
    expect(data.results.length).toBeGreaterThan(0);
    expect(JSON.stringify(data.results.slice(0, 3)).toLowerCase()).toContain('weather');
    expect(data.results[0]).toMatchObject({ id: expect.any(String), connection: expect.any(Object) });
    const again = await client.getTask({ id: task.id });
    expect(again).toMatchObject({ id: task.id, status: { state: 'completed' } });
    expect(dataOf(again)).toEqual(data);
  });

  it('a problem statement goes to knowledge search, with the content advisory; an explicit skill wins', async () => {
    // Searchable like a published learning: a seq (the full-text row id) and its index row.
    const seq = await learningsStore.nextSeq(server.db);
    const l = await seedLearning(server, { title: 'Quiet the Zorblax webhook retries with idempotency keys', seq });
    await learningsStore.index(server.db, l.id);
    const task = (await client.sendMessage(userMessage('how do I fix duplicate Zorblax webhook retries?'))) as Task;
    const data = dataOf(task);
    expect(data).toMatchObject({
      skill: 'knowledge-search',
      content_advisory: CONTENT_ADVISORY,
      content_trust: CONTENT_TRUST,
    });
    expect(data.results[0]).toMatchObject({ id: l.id, title: l.title });
    // The learnings' own words reach the agent framed as a body is everywhere else.
    const text = textOf(task);
    const framed = text.slice(text.indexOf(UNTRUSTED_NOTICE));
    expect(untrustedText(framed)).toContain(l.title);
    expect(data.results[0].body).toBeUndefined();
    const forced = (await client.sendMessage(
      userMessage('Zorblax webhook', { metadata: { skill: 'knowledge-search' } }),
    )) as Task;
    expect(dataOf(forced).skill).toBe('knowledge-search');
  });

  it('a message without text is rejected; an unknown task is the A2A TaskNotFound error', async () => {
    const task = (await client.sendMessage({
      message: { kind: 'message', role: 'user', messageId: randomUUID(), parts: [{ kind: 'data', data: { x: 1 } }] },
    })) as Task;
    expect(task.status.state).toBe('rejected');
    await expect(client.getTask({ id: randomUUID() })).rejects.toThrow(/not found/i);
  });
});

describe('A2A bounds', () => {
  it('stores a bounded copy of the message: a near-1 MiB request does not become a near-1 MiB task row', async () => {
    const text = `find a weather API ${'w'.repeat(400_000)}`;
    const junk = { kind: 'data' as const, data: { skill: 'discover', filler: 'd'.repeat(400_000) } };
    const sent = userMessage(text);
    const task = (await client.sendMessage({
      message: { ...sent.message, parts: [...sent.message.parts, junk] },
    })) as Task;
    expect(task.status.state).toBe('completed');
    const row = await server.db.get<{ task: string }>('SELECT task FROM a2a_tasks WHERE id = ?', [task.id]);
    expect(row!.task.length).toBeLessThan(16_384);
    const kept = (JSON.parse(row!.task) as Task).history![0]!;
    expect(kept.messageId).toBe(sent.message.messageId);
    expect(kept.parts).toEqual([
      { kind: 'text', text: text.slice(0, 500) },
      { kind: 'data', data: { skill: 'discover' } },
    ]);
  });

  it('60 requests a minute per address, then 429 rate_limited until the window ends', async () => {
    const own = await startTestServer();
    try {
      const get = () =>
        fetch(`${own.url}/a2a`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { id: randomUUID() } }),
        });
      const statuses = [];
      for (let i = 0; i < 61; i++) statuses.push((await get()).status);
      expect(statuses.slice(0, 60).every((s) => s === 200)).toBe(true);
      expect(statuses[60]).toBe(429);
      own.clock.advance(60_000);
      expect((await get()).status).toBe(200);
    } finally {
      await own.stop();
    }
  });
});

describe('routeRequest', () => {
  it.each([
    ['find a weather API', 'discover'],
    ['MCP server for PostgreSQL', 'discover'],
    ['send SMS', 'discover'],
    ['why does S3 return SlowDown?', 'knowledge-search'],
    ['fix flaky pagination', 'knowledge-search'],
  ])('%s -> %s', (text, skill) => expect(routeRequest(text)).toBe(skill));

  it('an explicit skill wins; an unknown one is ignored', () => {
    expect(routeRequest('find a weather API', 'knowledge-search')).toBe('knowledge-search');
    expect(routeRequest('find a weather API', 'unlock')).toBe('discover');
  });
});
