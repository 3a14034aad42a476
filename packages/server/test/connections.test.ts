import net from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/support/server.js';
import { MAX_PIPELINED } from '../src/http/connections.js';

let server: TestServer | undefined;
const timers: NodeJS.Timeout[] = [];
const sockets: net.Socket[] = [];
afterEach(async () => {
  for (const t of timers.splice(0)) clearInterval(t);
  for (const s of sockets.splice(0)) s.destroy();
  await server?.stop();
  server = undefined;
});

/** A raw loopback connection, connected, recording what the server sends and when it closes. */
async function connect(
  url: string,
  { allowHalfOpen = false } = {},
): Promise<{ socket: net.Socket; received: () => string; closed: Promise<void> }> {
  const { port } = new URL(url);
  const socket = net.connect({ port: Number(port), host: '127.0.0.1', allowHalfOpen });
  sockets.push(socket);
  let data = '';
  socket.on('data', (d) => (data += d));
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  return { socket, received: () => data, closed };
}

/** Writes `text` one character every `everyMs` until the socket closes. */
function trickle(socket: net.Socket, text: string, everyMs: number): void {
  let i = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || i >= text.length) return clearInterval(timer);
    socket.write(text[i++]!);
  }, everyMs);
  timers.push(timer);
}

const health = async (url: string) => (await fetch(`${url}/health`)).status;

describe('connection limits', () => {
  it('closes idle, slow-header, slow-body and kept-alive sockets past their timeouts', async () => {
    server = await startTestServer({
      AXLE_HEADERS_TIMEOUT_MS: '300',
      AXLE_REQUEST_TIMEOUT_MS: '600',
      AXLE_KEEP_ALIVE_TIMEOUT_MS: '200',
    });
    const idle = await connect(server.url);
    const slowHeaders = await connect(server.url);
    trickle(slowHeaders.socket, `GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: ${'a'.repeat(500)}\r\n\r\n`, 50);
    const slowBody = await connect(server.url);
    slowBody.socket.write(
      'POST /discover HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 400\r\n\r\n{',
    );
    trickle(slowBody.socket, `"query": "${'a'.repeat(380)}"}`, 50);
    const keptAlive = await connect(server.url);
    keptAlive.socket.write('GET /health HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n');

    // Each closes by the server's doing (the test's own timeout is the bound).
    await Promise.all([idle.closed, slowHeaders.closed, slowBody.closed, keptAlive.closed]);
    expect(keptAlive.received()).toMatch(/^HTTP\/1\.1 200/);
    expect(slowBody.received()).toMatch(/^HTTP\/1\.1 408/);
    expect(await health(server.url)).toBe(200);
  });

  it('closes a trickled header after the headers timeout, seconds not minutes, though the client never closes its side', async () => {
    const headersTimeoutMs = 1000;
    server = await startTestServer({ AXLE_HEADERS_TIMEOUT_MS: String(headersTimeoutMs) });
    // A slowloris client: keeps sending header bytes and ignores the server's answer and end of stream.
    const slow = await connect(server.url, { allowHalfOpen: true });
    const started = performance.now();
    trickle(slow.socket, `GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: ${'a'.repeat(5000)}`, 20);
    await slow.closed;
    const elapsed = performance.now() - started;
    expect(slow.received()).toMatch(/^HTTP\/1\.1 408/);
    expect(elapsed).toBeGreaterThanOrEqual(headersTimeoutMs - 50);
    // Loose: the server checks connections on an interval, and a loaded machine adds to that.
    expect(elapsed).toBeLessThanOrEqual(headersTimeoutMs + 5000);
  });

  it('answers /health while idle sockets hold every connection', async () => {
    server = await startTestServer({ AXLE_MAX_CONNECTIONS: '5' });
    const held = await Promise.all(Array.from({ length: 5 }, () => connect(server!.url)));
    for (const h of held.slice(0, 2)) h.socket.write('GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: a'); // headers never end
    // The cap is reached; a new client is served in the place of the longest idle socket.
    expect(await health(server.url)).toBe(200);
    await held[0]!.closed;
    expect(held.slice(1).every((h) => !h.socket.destroyed)).toBe(true);
  });

  it('closes a new connection when every connection is serving a request', async () => {
    server = await startTestServer({ AXLE_MAX_CONNECTIONS: '3' });
    const busy = await Promise.all(Array.from({ length: 3 }, () => connect(server!.url)));
    for (const b of busy) {
      // Expect: 100-continue makes the server say when the request has begun; its body never comes.
      b.socket.write(
        'POST /discover HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 50\r\nExpect: 100-continue\r\n\r\n',
      );
      await new Promise<void>((resolve) =>
        b.socket.on('data', () => b.received().includes('100 Continue') && resolve()),
      );
    }
    const refused = await connect(server.url);
    await refused.closed;
    expect(refused.received()).toBe('');
    expect(busy.every((b) => !b.socket.destroyed)).toBe(true);
  });

  // Found by sending 1,500 pipelined GET /openapi.json on each of four connections that never read: the server
  // answered every one, holding each answer in memory behind the unread ones, and grew by 1.6 GB in 20 s.
  it('closes a connection with more than MAX_PIPELINED requests waiting, before the rest are served', async () => {
    server = await startTestServer();
    const greedy = await connect(server.url);
    greedy.socket.pause(); // never reads
    greedy.socket.write('GET /openapi.json HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(200));
    await greedy.closed;
    const served = server.logs
      .map((l) => JSON.parse(l))
      .filter((l) => l.msg === 'request' && l.path === '/openapi.json');
    expect(served.length).toBeLessThanOrEqual(MAX_PIPELINED);
    // A client pipelining within the bound is served in order.
    const polite = await connect(server.url);
    polite.socket.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(MAX_PIPELINED));
    await new Promise<void>((resolve) =>
      polite.socket.on('data', () => polite.received().split('HTTP/1.1 200').length > MAX_PIPELINED && resolve()),
    );
    expect(polite.socket.destroyed).toBe(false);
  });
});

describe('client aborts', () => {
  it('logs a client that closes mid-body once, at info, with status 499 and no stack', async () => {
    server = await startTestServer();
    const aborted = await connect(server.url);
    const head = 'POST /discover HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n';
    aborted.socket.write(`${head}Expect: 100-continue\r\n\r\n{"query"`);
    // 100 Continue: the server is reading the body when the client leaves.
    await vi.waitFor(() => expect(aborted.received()).toContain('100 Continue'));
    aborted.socket.destroy();
    // Besides the request line, nothing at warn or above (the start's notice that payments are not settled aside).
    const lines = () =>
      server!.logs
        .map((l) => JSON.parse(l))
        .filter((l) => l.path === '/discover' || (l.level >= 40 && !/NOT being settled/.test(l.msg)));
    await vi.waitFor(() => expect(lines()).toHaveLength(1));
    const [line] = lines();
    expect(line).toMatchObject({ msg: 'request', level: 30, method: 'POST', path: '/discover', status: 499 });
    expect(JSON.stringify(server.logs)).not.toMatch(/stack|internal_error/);
    expect(await health(server.url)).toBe(200);
  });
});
