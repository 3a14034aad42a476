// A sign-in mail that cannot be delivered answers 503 mail_unavailable and costs nothing: no token row
// stays behind and no rate-limit quota is spent. Each failure is a real one: an SMTP server refusing,
// one that is not there, one that never answers, an outbox path that is not a directory, a process out of file descriptors
// (EMFILE) and a full filesystem (ENOSPC).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/support/server.js';
import { post } from '../../../test/support/identity.js';

let server: TestServer | undefined;
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  await server?.stop();
  server = undefined;
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** The per-email limit is 5 in 15 minutes: six refused deliveries in a row show that none spent quota. */
async function expectFreeFailures(s: TestServer, email: string, times = 6): Promise<void> {
  for (let i = 0; i < times; i++) {
    const res = await post(s, '/auth/magic-link', { email });
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ code: 'mail_unavailable' });
  }
  await expectNothingSpent(s);
}

async function expectNothingSpent(s: TestServer): Promise<void> {
  expect(await s.db.get('SELECT COUNT(*) AS n FROM magic_links')).toEqual({ n: 0 });
  expect(await s.db.all("SELECT count FROM rate_limits WHERE bucket LIKE 'magic-link:%' AND count > 0")).toEqual([]);
}

/** A real SMTP server that refuses every message with `code`. */
async function refusingSmtp(code: number, message: string): Promise<string> {
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      stream.resume();
      stream.on('end', () => callback(Object.assign(new Error(message), { responseCode: code })));
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => smtp.close(() => resolve())));
  return `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`;
}

/** A loopback port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

describe('an undeliverable sign-in mail is 503 and costs nothing', () => {
  it('when the SMTP server refuses the message (452, insufficient storage)', async () => {
    server = await startTestServer({ AXLE_SMTP_URL: await refusingSmtp(452, 'Insufficient system storage') });
    await expectFreeFailures(server, 'refused@example.com');
  });

  it('when no SMTP server answers', async () => {
    server = await startTestServer({ AXLE_SMTP_URL: `smtp://127.0.0.1:${await closedPort()}` });
    await expectFreeFailures(server, 'nobody-home@example.com');
  });

  it('when the SMTP server accepts the connection and never answers, within the SMTP timeout', async () => {
    // A server that takes the connection and stays silent: nodemailer alone waits 30 s for a greeting.
    const silent = net.createServer((socket) => cleanups.push(() => socket.destroy()));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => silent.close(() => resolve())));
    const timeoutMs = 300;
    server = await startTestServer({
      AXLE_SMTP_URL: `smtp://127.0.0.1:${(silent.address() as AddressInfo).port}`,
      AXLE_SMTP_TIMEOUT_MS: String(timeoutMs),
    });
    const started = performance.now();
    await expectFreeFailures(server, 'silent@example.com', 1);
    expect(performance.now() - started).toBeLessThan(timeoutMs + 2500);
  });

  // Found by pointing AXLE_SMTP_URL at a server that answers every command just inside the timeout: each wait
  // was bounded, the delivery as a whole was not, and the sign-in request took several timeouts to answer.
  it('when the SMTP server answers every step just inside the timeout: the whole delivery is bounded too', async () => {
    const timeoutMs = 1000;
    // Four waits of 0.6 timeouts each: every one inside the bound, together more than twice it.
    const slow = (callback: () => void) => setTimeout(callback, timeoutMs * 0.6);
    const smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onConnect: (_session, callback) => slow(callback),
      onMailFrom: (_address, _session, callback) => slow(callback),
      onRcptTo: (_address, _session, callback) => slow(callback),
      onData(stream, _session, callback) {
        stream.resume();
        stream.on('end', () => slow(callback));
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => smtp.close(() => resolve())));
    server = await startTestServer({
      AXLE_SMTP_URL: `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`,
      AXLE_SMTP_TIMEOUT_MS: String(timeoutMs),
    });
    const started = performance.now();
    await expectFreeFailures(server, 'tarpit@example.com', 1);
    expect(performance.now() - started).toBeLessThan(timeoutMs + 800);
  });

  it('when the outbox path is not a directory', async () => {
    server = await startTestServer();
    fs.writeFileSync(path.join(server.dataDir, 'outbox'), 'not a directory');
    await expectFreeFailures(server, 'blocked@example.com');
    expect(server.logs.map((l) => JSON.parse(l)).find((l) => l.msg === 'outbox write failed')).toMatchObject({
      level: 50,
    });
  });

  it('when the process is out of file descriptors (EMFILE)', async (t) => {
    if (process.platform !== 'linux' || spawnSync('prlimit', ['--version']).status !== 0)
      return t.skip('needs Linux and prlimit (util-linux)');
    server = await startTestServer();
    const { port } = new URL(server.url);
    // One connection, already accepted by the server (it answered a request), carries the sign-in.
    const socket = net.connect(Number(port), '127.0.0.1');
    cleanups.push(() => socket.destroy());
    let received = '';
    socket.on('data', (d) => (received += d));
    socket.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise<void>((resolve) => socket.on('data', () => received.includes('"status":"ok"') && resolve()));
    received = '';

    const [soft, hard] = fs
      .readFileSync('/proc/self/limits', 'utf8')
      .match(/Max open files\s+(\d+)\s+(\d+)/)!
      .slice(1);
    // Restores the limit when told on stdin: a pipe that is already open, since no new one could be.
    const restorer = spawn('sh', ['-c', `read _; exec prlimit --pid ${process.pid} --nofile=${soft}:${hard}`], {
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    const restored = new Promise((resolve) => restorer.once('exit', resolve));
    cleanups.push(async () => {
      restorer.stdin.end('\n');
      await restored;
    });
    // The lowest unused descriptor number (the one an open gets) becomes the limit: none is left to open.
    const lowest = fs.openSync('/dev/null', 'r');
    fs.closeSync(lowest);
    expect(spawnSync('prlimit', ['--pid', String(process.pid), `--nofile=${lowest}:${hard}`]).status).toBe(0);

    const body = JSON.stringify({ email: 'emfile@example.com' });
    socket.write(
      `POST /auth/magic-link HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
    await new Promise<void>((resolve) => socket.on('data', () => received.includes('}') && resolve()));
    restorer.stdin.end('\n');
    await restored;

    expect(received).toMatch(/^HTTP\/1\.1 503/);
    expect(received).toContain('"code":"mail_unavailable"');
    expect(server.logs.map((l) => JSON.parse(l)).find((l) => l.msg === 'outbox write failed')).toMatchObject({
      code: 'EMFILE',
    });
    await expectNothingSpent(server);
    expect((await post(server, '/auth/magic-link', { email: 'emfile@example.com' })).status).toBe(200);
  });

  it('when the outbox filesystem is full (ENOSPC)', async (t) => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'axle-enospc-'));
    const outbox = path.join(dataDir, 'outbox');
    fs.mkdirSync(outbox);
    cleanups.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
    if (spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=8k', 'tmpfs', outbox]).status !== 0)
      return t.skip('needs permission to mount a small tmpfs');
    cleanups.push(() => spawnSync('umount', [outbox]));
    // Fill it: the next message finds no room.
    const fd = fs.openSync(path.join(outbox, 'filler'), 'w');
    try {
      for (;;) fs.writeSync(fd, Buffer.alloc(512));
    } catch (err) {
      expect((err as NodeJS.ErrnoException).code).toBe('ENOSPC');
    } finally {
      fs.closeSync(fd);
    }
    server = await startTestServer({}, { dataDir });
    await expectFreeFailures(server, 'full@example.com');
    expect(server.logs.map((l) => JSON.parse(l)).find((l) => l.msg === 'outbox write failed')).toMatchObject({
      code: 'ENOSPC',
    });
    expect(fs.readdirSync(outbox)).toEqual(['filler']);
    await server.stop({ keepData: true });
    server = undefined;
  });
});
