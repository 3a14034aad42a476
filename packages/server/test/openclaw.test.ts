import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ExtractGone, OpenClawConfigResponse, OpenClawStateResponse, OpenClawStatus } from '@axle/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/support/server.js';

const ADMIN = 'admin-token-openclaw-0123456789abcdef';
const READ = 'read-token-openclaw-0123456789';
const fixtures = fileURLToPath(new URL('../../extractor/test/fixtures/openclaw/', import.meta.url));

async function call(
  server: TestServer,
  method: string,
  route: string,
  opts: { body?: unknown; headers?: Record<string, string> } = {},
) {
  const res = await fetch(`${server.url}${route}`, {
    method,
    headers: { ...(opts.body !== undefined && { 'content-type': 'application/json' }), ...opts.headers },
    ...(opts.body !== undefined && { body: JSON.stringify(opts.body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** Waits for the adapter's background run through the API itself (the run is not ours to await). */
async function until(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error('condition not reached');
}

describe('POST /extract', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.stop());

  it('always answers 410 extraction_client_side, whatever the body or credentials', async () => {
    for (const body of [
      {},
      { source: { type: 'claude-code', session_id: 's' }, transcript: 'x'.repeat(200), transcript_sha256: 'abc' },
      'not json',
    ]) {
      const res = await call(server, 'POST', '/extract', { body, headers: { 'x-api-key': 'axl_whatever' } });
      expect(res.status).toBe(410);
      expect(ExtractGone.parse(res.body)).toEqual(res.body);
      expect(res.body.code).toBe('extraction_client_side');
      expect(res.body.message).toContain('axle extract');
      expect(res.body.request_id).toEqual(expect.any(String));
    }
  });

  it('answers 503 on the OpenClaw routes when no memory path is configured', async () => {
    const res = await call(server, 'GET', '/openclaw/status');
    expect(res.status).toBe(503);
    expect(res.body.code).toBe('openclaw_not_configured');
  });
});

describe('OpenClaw adapter routes', () => {
  let memory: string;
  let server: TestServer;
  beforeAll(async () => {
    memory = await mkdtemp(path.join(tmpdir(), 'axle-openclaw-'));
    await cp(fixtures, memory, { recursive: true });
    server = await startTestServer({
      AXLE_ADMIN_TOKEN: ADMIN,
      AXLE_ADMIN_READ_TOKEN: READ,
      AXLE_OPENCLAW_MEMORY_PATH: memory,
    });
  });
  afterAll(async () => {
    await server.stop();
    await rm(memory, { recursive: true, force: true });
  });

  it('reports status with the default config to a loopback caller', async () => {
    const res = await call(server, 'GET', '/openclaw/status');
    expect(res.status).toBe(200);
    const status = OpenClawStatus.parse(res.body);
    expect(status).toMatchObject({ last_run: null, last_result: null, memory_path: memory, interval_ms: 900_000 });
    expect(status.config).toEqual({
      glob_pattern: '**/*.md',
      max_depth: 2,
      max_file_size: 1_000_000,
      max_files_per_run: 20,
      min_file_size: 50,
      delay_between_files_ms: 2000,
      auto_publish: true,
    });
  });

  it('accepts only the allowed config fields', async () => {
    const bad = await call(server, 'POST', '/openclaw/config', {
      body: { delay_between_files_ms: 0, memory_path: '/etc' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('validation_error');
    expect((await call(server, 'POST', '/openclaw/config', { body: { max_depth: 'deep' } })).status).toBe(400);
    const ok = await call(server, 'POST', '/openclaw/config', {
      body: { delay_between_files_ms: 0, min_file_size: 10 },
    });
    expect(ok.status).toBe(200);
    expect(OpenClawConfigResponse.parse(ok.body).config).toMatchObject({
      delay_between_files_ms: 0,
      min_file_size: 10,
      max_depth: 2,
    });
  });

  it('triggers a run, records state, and skips unchanged files on the next run', async () => {
    const res = await call(server, 'POST', '/openclaw/trigger');
    expect(res).toEqual({ status: 200, body: { triggered: true, message: 'extraction run started' } });
    await until(async () => (await call(server, 'GET', '/openclaw/status')).body.last_run !== null);
    const state = OpenClawStateResponse.parse((await call(server, 'GET', '/openclaw/state')).body);
    expect(state.count).toBe(2);
    expect(state.entries.map((e) => path.relative(memory, e.file)).sort()).toEqual([
      'MEMORY.md',
      path.join('memory', '2026-11-19.md'),
    ]);
    expect(state.entries.every((e) => e.ts === new Date(server.clock.now()).toISOString())).toBe(true);
    const status = OpenClawStatus.parse((await call(server, 'GET', '/openclaw/status')).body);
    expect(status.last_result).toMatchObject({ files_processed: 2, errors: [] });

    server.clock.advance(60_000);
    await call(server, 'POST', '/openclaw/trigger');
    // last_run changes when the run's result is recorded, i.e. once it has finished
    const now = new Date(server.clock.now()).toISOString();
    await until(async () => (await call(server, 'GET', '/openclaw/status')).body.last_run === now);
    const again = OpenClawStatus.parse((await call(server, 'GET', '/openclaw/status')).body);
    expect(again.last_result).toMatchObject({ files_processed: 0, files_unchanged: 2, finished_at: now });
  });

  it('answers 409 to a trigger while a run is under way', async () => {
    await writeFile(
      path.join(memory, 'memory', '2026-11-21.md'),
      '## Deploy\nThe deploy failed with `EADDRINUSE` on port 8080. Fixed by stopping the old pm2 process first.\n',
    );
    await writeFile(
      path.join(memory, 'memory', '2026-11-22.md'),
      '## Cron\nThe cron job failed with `permission denied`. Fixed by running it as the app user with `crontab -u app`.\n',
    );
    // A long pause between files keeps the run under way; stopping the server ends it at once.
    await call(server, 'POST', '/openclaw/config', { body: { delay_between_files_ms: 600_000 } });
    expect((await call(server, 'POST', '/openclaw/trigger')).status).toBe(200);
    await until(async () => (await call(server, 'GET', '/openclaw/state')).body.count === 3);
    const busy = await call(server, 'POST', '/openclaw/trigger');
    expect(busy.status).toBe(409);
    expect(busy.body.error).toBe('OpenClaw run already in progress');
  });
});

describe('OpenClaw routes from a non-local caller', () => {
  let memory: string;
  let server: TestServer;
  beforeAll(async () => {
    memory = await mkdtemp(path.join(tmpdir(), 'axle-openclaw-'));
    server = await startTestServer({
      AXLE_ADMIN_TOKEN: ADMIN,
      AXLE_ADMIN_READ_TOKEN: READ,
      AXLE_OPENCLAW_MEMORY_PATH: memory,
    });
  });
  afterAll(async () => {
    await server.stop();
    await rm(memory, { recursive: true, force: true });
  });

  // Requests relayed by a proxy on the same host arrive from loopback but carry X-Forwarded-For.
  const remote = { 'x-forwarded-for': '203.0.113.9' };

  it('needs the admin token; the read token is enough for GETs only', async () => {
    expect((await call(server, 'GET', '/openclaw/status', { headers: remote })).status).toBe(401);
    expect((await call(server, 'GET', '/openclaw/state', { headers: { forwarded: 'for=203.0.113.9' } })).status).toBe(
      401,
    );
    expect(
      (await call(server, 'GET', '/openclaw/status', { headers: { ...remote, authorization: 'Bearer wrong' } })).status,
    ).toBe(401);
    expect(
      (await call(server, 'GET', '/openclaw/status', { headers: { ...remote, authorization: `Bearer ${READ}` } }))
        .status,
    ).toBe(200);
    expect(
      (await call(server, 'GET', '/openclaw/state', { headers: { ...remote, authorization: `Bearer ${READ}` } })).body,
    ).toEqual({ entries: [], count: 0 });
    expect(
      (
        await call(server, 'POST', '/openclaw/config', {
          body: { max_depth: 1 },
          headers: { ...remote, authorization: `Bearer ${READ}` },
        })
      ).status,
    ).toBe(403);
    const ok = await call(server, 'POST', '/openclaw/config', {
      body: { max_depth: 1 },
      headers: { ...remote, authorization: `Bearer ${ADMIN}` },
    });
    expect(ok.status).toBe(200);
    expect(await call(server, 'POST', '/openclaw/trigger', { headers: remote })).toMatchObject({ status: 401 });
  });

  // The operator's browser is on loopback too: a page of another site it shows (CORS answers every origin) must
  // not read the adapter's files or change and run it. Browsers name that page in Origin / Sec-Fetch-Site.
  it('treats a page of another site as remote, though its request arrives from loopback', async () => {
    const before = (await call(server, 'GET', '/openclaw/status')).body.config;
    for (const page of [
      { origin: 'https://evil.example' },
      { origin: 'null' },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
    ]) {
      expect((await call(server, 'GET', '/openclaw/status', { headers: page })).status).toBe(401);
      expect((await call(server, 'GET', '/openclaw/state', { headers: page })).status).toBe(401);
      const config = await call(server, 'POST', '/openclaw/config', { body: { glob_pattern: '**/*' }, headers: page });
      expect(config.status).toBe(401);
      expect((await call(server, 'POST', '/openclaw/trigger', { headers: page })).status).toBe(401);
    }
    expect((await call(server, 'GET', '/openclaw/status')).body.config).toEqual(before);
    // The admin token still works from anywhere, and a page of this server's own origin is local.
    const admin = { origin: 'https://evil.example', authorization: `Bearer ${ADMIN}` };
    expect((await call(server, 'GET', '/openclaw/state', { headers: admin })).status).toBe(200);
    const own = { origin: new URL(server.url).origin, 'sec-fetch-site': 'same-origin' };
    expect((await call(server, 'GET', '/openclaw/state', { headers: own })).status).toBe(200);
  });
});
