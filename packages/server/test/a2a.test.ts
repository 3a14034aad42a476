import { randomUUID } from 'node:crypto';
// The 0.3 line of the official SDK, installed under an alias next to the 1.x line the server runs on.
import type { DataPart, Task } from 'a2a-sdk-03';
import { type Client, ClientFactory } from 'a2a-sdk-03/client';
import { type Message as V1Message, Role, type Task as V1Task, TaskState } from '@a2a-js/sdk';
import { ClientFactory as V1ClientFactory, ClientFactoryOptions } from '@a2a-js/sdk/client';
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

describe('A2A 0.3 JSON-RPC with the @a2a-js/sdk 0.3 client', () => {
  it('the card declares the 0.3 JSON-RPC transport and, for 1.x clients, the 1.0 interfaces', async () => {
    const card = (await (await fetch(`${server.url}/.well-known/agent-card.json`)).json()) as Record<string, any>;
    expect(card).toMatchObject({ protocolVersion: '0.3.0', preferredTransport: 'JSONRPC', url: `${server.url}/a2a` });
    expect(card.additionalInterfaces).toEqual([{ url: `${server.url}/a2a`, transport: 'JSONRPC' }]);
    expect(card.supportedInterfaces).toEqual([
      { url: `${server.url}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: `${server.url}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      { url: `${server.url}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    ]);
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
    // Searchable like a published learning: a seq (the full-text row id); the schema indexes it.
    const seq = await learningsStore.nextSeq(server.db);
    const l = await seedLearning(server, { title: 'Quiet the Zorblax webhook retries with idempotency keys', seq });
    const task = (await client.sendMessage(userMessage('how do I fix duplicate Zorblax webhook retries?'))) as Task;
    const data = dataOf(task);
    expect(data).toMatchObject({
      skill: 'knowledge-search',
      content_advisory: CONTENT_ADVISORY,
      content_trust: CONTENT_TRUST,
    });
    expect(data.results[0].id).toBe(l.id);
    expect(untrustedText(data.results[0].title)).toBe(l.title);
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

/** A 1.0 user message with one text part, as a 1.x client builds it. */
const v1Message = (text: string): V1Message => ({
  messageId: randomUUID(),
  contextId: randomUUID(),
  taskId: '',
  role: Role.ROLE_USER,
  parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
});
const v1Data = (task: V1Task) => {
  const part = task.artifacts[0]!.parts[0]!;
  return (part.content?.$case === 'data' ? part.content.value : undefined) as Record<string, any>;
};

describe('A2A 1.0 with the @a2a-js/sdk 1.x client', () => {
  it('default options: resolves the card from the base URL, sends a message over JSON-RPC 1.0, reads the task', async () => {
    const v1 = await new V1ClientFactory().createFromUrl(server.url);
    expect(v1.protocolVersion).toBe('1.0');
    const message = v1Message('find a weather API');
    const task = (await v1.sendMessage({
      tenant: '',
      message,
      configuration: undefined,
      metadata: undefined,
    })) as V1Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(v1Data(task).skill).toBe('discover');
    expect(v1Data(task).results.length).toBeGreaterThan(0);
    const again = await v1.getTask({ tenant: '', id: task.id, historyLength: undefined });
    expect(again.id).toBe(task.id);
    expect(v1Data(again)).toEqual(v1Data(task));
    const listed = await v1.listTasks({
      tenant: '',
      contextId: message.contextId,
      status: TaskState.TASK_STATE_UNSPECIFIED,
      pageToken: '',
      statusTimestampAfter: undefined,
    });
    expect(listed.tasks.map((t) => t.id)).toEqual([task.id]);
    await expect(v1.getTask({ tenant: '', id: randomUUID(), historyLength: undefined })).rejects.toThrow(/not found/i);
  });

  it('HTTP+JSON: the same agent over the REST binding; a task made over JSON-RPC 0.3 reads back here', async () => {
    const rest = await new V1ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: ['HTTP+JSON'] }),
    ).createFromUrl(server.url);
    // The binding itself, without the client: A2A error bodies, and a null message is a 400, not an internal error.
    const missing = await fetch(`${server.url}/a2a/rest/tasks/${randomUUID()}`, { headers: { 'A2A-Version': '1.0' } });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { code: 404, status: 'NOT_FOUND' } });
    const nullMessage = await fetch(`${server.url}/a2a/rest/message:send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify({ message: null }),
    });
    expect(nullMessage.status).toBe(400);
    expect(JSON.stringify(await nullMessage.json())).not.toMatch(/Cannot read/);
    const task = (await rest.sendMessage({
      tenant: '',
      message: v1Message('why does the Zorblax webhook fail?'),
      configuration: undefined,
      metadata: undefined,
    })) as V1Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(v1Data(task)).toMatchObject({ skill: 'knowledge-search', content_advisory: CONTENT_ADVISORY });
    const old = (await client.sendMessage(userMessage('find a currency API'))) as Task;
    const read = await rest.getTask({ tenant: '', id: old.id, historyLength: undefined });
    expect(v1Data(read).skill).toBe('discover');
    await expect(rest.getTask({ tenant: '', id: randomUUID(), historyLength: undefined })).rejects.toThrow(
      /not found/i,
    );
  });

  it('ListTasks pages with nextPageToken, filters by status and leaves artifacts out unless asked (both bindings)', async () => {
    // A server of its own: these requests would otherwise count against the shared server's per-address limit.
    const own = await startTestServer();
    for (const transport of ['JSONRPC', 'HTTP+JSON']) {
      const v1 = await new V1ClientFactory(
        ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: [transport] }),
      ).createFromUrl(own.url);
      const contextId = randomUUID();
      const sent: string[] = [];
      for (const q of ['find a weather API', 'find a PDF API', 'find a maps API']) {
        const task = (await v1.sendMessage({
          tenant: '',
          message: { ...v1Message(q), contextId },
          configuration: undefined,
          metadata: undefined,
        })) as V1Task;
        sent.push(task.id);
      }
      const list = (status: TaskState, pageToken = '', includeArtifacts = false) =>
        v1.listTasks({
          tenant: '',
          contextId,
          status,
          pageSize: 2,
          pageToken,
          includeArtifacts,
          statusTimestampAfter: undefined,
        });
      const first = await list(TaskState.TASK_STATE_UNSPECIFIED);
      expect(first.tasks).toHaveLength(2);
      expect(first.totalSize).toBe(3);
      expect(first.nextPageToken).not.toBe('');
      expect(first.tasks.every((t) => t.artifacts.length === 0)).toBe(true);
      const second = await list(TaskState.TASK_STATE_UNSPECIFIED, first.nextPageToken, true);
      expect(second.tasks).toHaveLength(1);
      expect(second.nextPageToken).toBe('');
      expect(v1Data(second.tasks[0]!).skill).toBe('discover');
      expect([...first.tasks, ...second.tasks].map((t) => t.id).sort()).toEqual([...sent].sort());
      const failed = await list(TaskState.TASK_STATE_FAILED);
      expect(failed).toMatchObject({ tasks: [], totalSize: 0, nextPageToken: '' });
      await expect(list(TaskState.TASK_STATE_UNSPECIFIED, 'not a cursor')).rejects.toThrow(/token/i);
    }
    await own.stop();
  });

  it('SubscribeToTask over JSON-RPC 1.0 is the A2A UnsupportedOperation error the client reads, as over REST', async () => {
    // A server of its own, as for ListTasks: the shared one's per-address limit is spent by the other tests.
    const own = await startTestServer();
    const v1 = await new V1ClientFactory().createFromUrl(own.url);
    const task = (await v1.sendMessage({
      tenant: '',
      message: v1Message('find a weather API'),
      configuration: undefined,
      metadata: undefined,
    })) as V1Task;
    const subscribe = async () => {
      for await (const _ of v1.resubscribeTask({ tenant: '', id: task.id })) {
        // streaming is not served: nothing arrives
      }
    };
    await expect(subscribe()).rejects.toMatchObject({ name: 'UnsupportedOperationError' });
    await own.stop();
  });

  it('HTTP+JSON answers carry the reason phrase of their own status (a 200 is not "Not Found")', async () => {
    const own = await startTestServer();
    const headers = { 'A2A-Version': '1.0' };
    const listed = await fetch(`${own.url}/a2a/rest/tasks?contextId=${randomUUID()}`, { headers });
    expect([listed.status, listed.statusText]).toEqual([200, 'OK']);
    const bad = await fetch(`${own.url}/a2a/rest/tasks?contextId=x&pageSize=500`, { headers });
    expect([bad.status, bad.statusText]).toEqual([400, 'Bad Request']);
    const missing = await fetch(`${own.url}/a2a/rest/tasks/${randomUUID()}`, { headers });
    expect([missing.status, missing.statusText]).toEqual([404, 'Not Found']);
    await own.stop();
  });

  it('invalid params are -32602 with a plain message, never an internal error text (0.3 and 1.0)', async () => {
    const rpc = async (method: string, params: unknown, version?: string) =>
      (await (
        await fetch(`${server.url}/a2a`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(version && { 'A2A-Version': version }) },
          body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }),
        })
      ).json()) as { error?: { code: number; message: string } };
    for (const [method, params, version] of [
      ['message/send', { message: null }, undefined],
      ['message/send', { message: { kind: 'message', role: 'user', messageId: 'm1', parts: null } }, undefined],
      ['message/send', {}, undefined],
      ['SendMessage', { message: null }, '1.0'],
      ['SendMessage', { message: { messageId: 'm1', role: 'ROLE_USER', parts: 'x' } }, '1.0'],
    ] as const) {
      const answer = await rpc(method, params, version);
      expect(answer.error, `${method} ${JSON.stringify(params)}`).toMatchObject({ code: -32602 });
      expect(answer.error!.message).not.toMatch(/Cannot read|is not a function|\(reading/);
    }
  });
});

describe('A2A junk', () => {
  it('no request shape makes an internal error (-32603) or a JavaScript error text, in either version', async () => {
    const junk = [
      ['tasks/get', null],
      ['tasks/get', { id: null }],
      ['tasks/get', { id: 7 }],
      ['tasks/cancel', { id: randomUUID() }],
      ['message/send', { message: { kind: 'message', role: 'user', messageId: null, parts: [null] } }],
      ['message/send', { message: { kind: 'message', role: 'user', messageId: 'm', parts: [{ kind: 'text' }] } }],
      [
        'message/send',
        { message: { kind: 'message', role: 'user', messageId: 'm', parts: [{ kind: 'data', data: null }] } },
      ],
      ['GetTask', { id: null }],
      ['ListTasks', { pageSize: -5 }],
      ['SendMessage', { message: { messageId: 'm', role: 'ROLE_USER', parts: [null] } }],
      ['SendMessage', { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ data: null }] } }],
      ['no/such', {}],
    ] as const;
    for (const [method, params] of junk) {
      for (const version of [undefined, '1.0']) {
        const res = await fetch(`${server.url}/a2a`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(version && { 'A2A-Version': version }) },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
        });
        const text = await res.text();
        const where = `${version ?? '0.3'} ${method} ${JSON.stringify(params)}: ${text.slice(0, 300)}`;
        expect(res.status, where).toBeLessThan(500);
        expect(text, where).not.toMatch(/-32603|Cannot read|is not a function|undefined \(reading/);
      }
    }
    for (const body of [
      { message: { messageId: 'm', role: 'ROLE_USER', parts: null } },
      { message: { messageId: 'm', role: 'ROLE_USER', parts: [null] } },
      { message: { messageId: 7, parts: [{ text: 5 }] } },
      [],
      'text',
    ]) {
      const res = await fetch(`${server.url}/a2a/rest/message:send`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
        body: JSON.stringify(body),
      });
      const text = await res.text();
      expect(res.status, `${JSON.stringify(body)}: ${text}`).toBeLessThan(500);
      expect(text).not.toMatch(/Cannot read|is not a function|\(reading/);
    }
    const rest = await fetch(`${server.url}/a2a/rest/no-such-thing`, { headers: { 'A2A-Version': '1.0' } });
    expect(rest.status).toBe(404);
    expect(rest.headers.get('content-type')).toMatch(/json/);
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
    // Stored as A2A 1.0 JSON.
    const kept = (JSON.parse(row!.task) as { history: Array<{ messageId: string; parts: unknown[] }> }).history[0]!;
    expect(kept.messageId).toBe(sent.message.messageId);
    expect(kept.parts).toEqual([
      { text: text.slice(0, 500), mediaType: 'text/plain' },
      { data: { skill: 'discover' }, mediaType: 'application/json' },
    ]);
  });

  // Found by sending message/send with a 100,000-character contextId: the task row kept it five times over
  // (half a megabyte from one anonymous request, kept a day), past the bounded copy of the message above.
  it('refuses a messageId, contextId or taskId over 128 characters (-32602, REST 400) and stores nothing', async () => {
    const tasks = async () => (await server.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM a2a_tasks'))!.n;
    const before = await tasks();
    const long = 'c'.repeat(129);
    for (const extra of [{ messageId: long }, { contextId: long }, { taskId: long }]) {
      const { message } = userMessage('find a weather API', extra);
      const rpc = await fetch(`${server.url}/a2a`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'message/send', params: { message } }),
      });
      const answer = (await rpc.json()) as { error?: { code: number; message: string } };
      expect(answer.error, JSON.stringify(Object.keys(extra))).toMatchObject({ code: -32602 });
      expect(answer.error!.message).toContain('128');
      const rest = await fetch(`${server.url}/a2a/rest/message:send`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
        body: JSON.stringify({ message: { ...message, role: 'ROLE_USER', parts: [{ text: 'find a weather API' }] } }),
      });
      expect(rest.status).toBe(400);
    }
    expect(await tasks()).toBe(before);
    // 128 characters are accepted.
    const { message } = userMessage('find a weather API', { contextId: 'c'.repeat(128) });
    expect(((await client.sendMessage({ message })) as Task).contextId).toBe('c'.repeat(128));
  });

  // Found by sending tasks/get with a 200,000-character id: it was looked up in the database and echoed whole in
  // "Task not found: …"; no task id is longer than 128 characters (a taskId a client chose, or a UUID).
  it('refuses a tasks/get (GetTask, CancelTask) id over 128 characters with -32602, without echoing it', async () => {
    server.clock.advance(60_000); // a fresh minute of the address's A2A requests
    const long = 't'.repeat(100_000);
    for (const [method, version] of [
      ['tasks/get', undefined],
      ['tasks/cancel', undefined],
      ['GetTask', '1.0'],
      ['CancelTask', '1.0'],
    ] as const) {
      const res = await fetch(`${server.url}/a2a`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(version && { 'A2A-Version': version }) },
        body: JSON.stringify({ jsonrpc: '2.0', id: 3, method, params: { id: long } }),
      });
      const text = await res.text();
      expect(text.length, method).toBeLessThan(1_000);
      const answer = JSON.parse(text) as { error?: { code: number; message: string } };
      expect(answer.error, method).toMatchObject({ code: -32602 });
      expect(answer.error!.message).toContain('128');
    }
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
