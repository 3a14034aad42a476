import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import Router from '@koa/router';
import { API_KEY_SCOPES, type ApiKeyScope, MagicLinkRequest } from '@axle/sdk';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../src/clock.js';
import { clientIp } from '../src/http/client-ip.js';
import { errorMiddleware } from '../src/http/error-middleware.js';
import { createIdentity } from '../src/http/identity.js';
import { createAccountWriteLimiter } from '../src/services/account-write-limits.js';
import { createRateLimiter } from '../src/services/rate-limit.js';
import { createAccountsService, findOrCreateAccount } from '../src/services/accounts.js';
import { API_KEY_PATTERN, base62, createKey, generateApiKey } from '../src/services/api-keys.js';
import { createJwtService, loadJwtSecret } from '../src/services/jwt.js';
import { Database } from '../src/store/db.js';
import { migrate } from '../src/store/migrate.js';
import { startTestServer } from '../../../test/support/server.js';

describe('pure helpers', () => {
  it('encodes base62 at a fixed width', () => {
    expect(base62(new Uint8Array([0]), 3)).toBe('000');
    expect(base62(new Uint8Array([61]), 1)).toBe('z');
    expect(base62(new Uint8Array([1, 0]), 2)).toBe('48'); // 256 = 4*62 + 8
    expect(base62(new Uint8Array(32).fill(255), 43)).toHaveLength(43);
  });

  it('generates distinct axl_ keys of 32 random bytes', () => {
    const keys = new Set(Array.from({ length: 200 }, generateApiKey));
    expect(keys.size).toBe(200);
    for (const k of keys) expect(k).toMatch(API_KEY_PATTERN);
  });

  it.each([
    ['/device', true],
    ['/device?user_code=BCDF-GHJK', true],
    ['/', true],
    ['//evil.example', false],
    ['/\\evil.example', false],
    ['https://evil.example/', false],
    ['javascript:alert(1)', false],
    ['device', false],
    ['/a b', false],
    ['/\nSet-Cookie:x', false],
  ])('accepts next=%j: %s', (next, ok) => {
    expect(MagicLinkRequest.safeParse({ email: 'a@example.com', next }).success).toBe(ok);
  });
});

describe('JWT secret', () => {
  it('is generated once with mode 0600 and reused; AXLE_JWT_SECRET wins', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'axle-jwt-'));
    try {
      const clock = new ManualClock();
      const first = createJwtService(loadJwtSecret(undefined, dir), clock);
      const second = createJwtService(loadJwtSecret(undefined, dir), clock);
      const token = await first.issue('acc_1');
      expect(await second.verify(token)).toBe('acc_1');
      expect(fs.statSync(path.join(dir, 'jwt-secret')).mode & 0o777).toBe(0o600);
      const configured = createJwtService(loadJwtSecret('c'.repeat(32), dir), clock);
      expect(await configured.verify(token)).toBeNull();
      // Written through a temporary file that does not stay behind.
      expect(fs.readdirSync(dir)).toEqual(['jwt-secret']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it.each([
    ['empty', ''],
    ['1-byte', 'x'],
    ['31-byte', `${'s'.repeat(31)}\n`],
  ])('refuses to start on an %s stored secret, naming the file', async (_, content) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'axle-jwt-'));
    try {
      const file = path.join(dir, 'jwt-secret');
      fs.writeFileSync(file, content, { mode: 0o600 });
      expect(() => loadJwtSecret(undefined, dir)).toThrow(
        `${file} holds a ${content.trim().length}-byte session secret`,
      );
      await expect(startTestServer({}, { dataDir: dir })).rejects.toThrow(file);
      expect(fs.readFileSync(file, 'utf8')).toBe(content);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('identity middleware on a real database', () => {
  const clock = new ManualClock();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'axle-identity-'));
  const jwt = createJwtService(new TextEncoder().encode('s'.repeat(32)), clock);
  let db: Database;
  let server: http.Server;
  let base: string;
  let active: { accountId: string; key: string; searchKey: string; jwt: string };
  let suspendedKey: string;
  let deletedKey: string;

  beforeAll(async () => {
    db = await Database.open(path.join(dir, 'axle.db'));
    await migrate(db, undefined, clock.now());
    const setUp = async (email: string) =>
      db.tx(async (q) => {
        const account = await findOrCreateAccount(q, email, clock.now());
        const key = await createKey(q, account.id, {}, clock.now());
        const searchKey = await createKey(q, account.id, { name: 'search', scopes: ['search'] }, clock.now());
        return { accountId: account.id, key: key.api_key, searchKey: searchKey.api_key };
      });
    const a = await setUp('active@example.com');
    active = { ...a, jwt: await jwt.issue(a.accountId) };
    const s = await setUp('suspended@example.com');
    await db.run('UPDATE accounts SET suspended = 1 WHERE id = ?', [s.accountId]);
    suspendedKey = s.key;
    const d = await setUp('deleted@example.com');
    await db.run('UPDATE accounts SET deleted_at = 1 WHERE id = ?', [d.accountId]);
    deletedKey = d.key;

    const writeLimits = createAccountWriteLimiter(createRateLimiter({ db, clock }));
    const identity = createIdentity({ accounts: createAccountsService({ db, clock, writeLimits }), config: {}, jwt });
    const app = new Koa();
    const router = new Router();
    const echo = (ctx: Koa.Context) => {
      ctx.body = { identity: ctx.state.identity ?? null, ip: clientIp(ctx, ctx.get('x-trust') === '1') };
    };
    // What http/route.ts does from ROUTE_SCOPES: the scopes that allow the route to a key.
    const scoped =
      (scopes: readonly ApiKeyScope[]): Koa.Middleware =>
      (ctx, next) => {
        ctx.state.routeScopes = scopes;
        return next();
      };
    router.get('/key', scoped(API_KEY_SCOPES), identity.requireJwtOrKey(), echo);
    router.get('/key/contribute', scoped(['contribute']), identity.requireJwtOrKey(), echo);
    router.get('/either/search', scoped(['search']), identity.requireJwtOrKey(), echo);
    router.get('/unlisted', identity.requireJwtOrKey(), echo);
    router.get('/optional', scoped(['search']), identity.optionalKey(), echo);
    router.get('/active', scoped(API_KEY_SCOPES), identity.requireJwtOrKey(), identity.requireActiveAccount(), echo);
    router.get('/admin', identity.requireAdmin('read'), echo);
    app.use(errorMiddleware());
    app.use(router.routes());
    server = http.createServer(app.callback()).listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((r) => server.close(() => r()));
    await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const get = async (p: string, headers: Record<string, string> = {}) => {
    const res = await fetch(base + p, { headers });
    return { status: res.status, body: await res.json() };
  };

  it('sets ctx.state.identity from a key, with its scopes', async () => {
    const { status, body } = await get('/key', { 'x-api-key': active.key });
    expect(status).toBe(200);
    expect(body.identity).toEqual({
      accountId: active.accountId,
      via: 'key',
      keyId: expect.stringMatching(/^key_/),
      scopes: ['search', 'contribute', 'account'],
    });
  });

  it('checks key scopes against the route entry, and refuses keys on a route without one', async () => {
    expect(await get('/unlisted', { 'x-api-key': active.key })).toMatchObject({
      status: 403,
      body: { code: 'insufficient_scope', allowed_scopes: [] },
    });
    const narrow = await get('/key/contribute', { 'x-api-key': active.searchKey });
    expect(narrow).toMatchObject({ status: 403, body: { code: 'insufficient_scope', required_scope: 'contribute' } });
    expect((await get('/either/search', { 'x-api-key': active.searchKey })).status).toBe(200);
  });

  it('gives a JWT every scope on JWT-or-key routes', async () => {
    const { status, body } = await get('/either/search', { authorization: `Bearer ${active.jwt}` });
    expect(status).toBe(200);
    expect(body.identity).toEqual({
      accountId: active.accountId,
      via: 'jwt',
      scopes: ['search', 'contribute', 'account', 'payout'],
    });
  });

  it('lets optionalKey pass without a key but not with a bad one', async () => {
    expect(await get('/optional')).toEqual({ status: 200, body: { identity: null, ip: '127.0.0.1' } });
    expect((await get('/optional', { 'x-api-key': `axl_${'0'.repeat(43)}` })).body).toMatchObject({
      error: 'Invalid API key',
      code: 'invalid_api_key',
    });
    expect((await get('/optional', { 'x-api-key': active.key })).body.identity.accountId).toBe(active.accountId);
  });

  it('refuses keys of deleted accounts and lets requireActiveAccount stop suspended ones', async () => {
    expect((await get('/key', { 'x-api-key': deletedKey })).status).toBe(401);
    expect((await get('/key', { 'x-api-key': suspendedKey })).status).toBe(200);
    expect(await get('/active', { 'x-api-key': suspendedKey })).toMatchObject({
      status: 403,
      body: { code: 'account_suspended' },
    });
    expect((await get('/active', { 'x-api-key': active.key })).status).toBe(200);
  });

  it('refuses admin routes when no admin token is configured', async () => {
    expect((await get('/admin', { authorization: 'Bearer ' })).status).toBe(401);
    expect((await get('/admin', { authorization: 'Bearer anything' })).status).toBe(401);
  });

  it('reads X-Forwarded-For only when trusted, and only its last entry', async () => {
    const xff = { 'x-forwarded-for': '10.9.9.9, 192.0.2.7' };
    expect((await get('/optional', xff)).body.ip).toBe('127.0.0.1');
    expect((await get('/optional', { ...xff, 'x-trust': '1' })).body.ip).toBe('192.0.2.7');
    expect((await get('/optional', { 'x-forwarded-for': 'garbage', 'x-trust': '1' })).body.ip).toBe('127.0.0.1');
    // An IPv6 client is its /64 (one host or network holds all of it); IPv4 in IPv6 and loopback stay whole.
    const from = async (ip: string) => (await get('/optional', { 'x-forwarded-for': ip, 'x-trust': '1' })).body.ip;
    expect(await from('2001:db8:1:2:aaaa:bbbb:cccc:dddd')).toBe('2001:db8:1:2::');
    expect(await from('2001:DB8:1:2::9')).toBe('2001:db8:1:2::');
    expect(await from('::ffff:192.0.2.9')).toBe('192.0.2.9');
    expect(await from('64:ff9b::192.0.2.9')).toBe('64:ff9b::192.0.2.9');
    expect(await from('::1')).toBe('::1');
  });
});

describe('rate-limit windows', () => {
  it('opens a window at the first hit, refuses past the max with the time left, and resets after it', async () => {
    const db = await Database.open(':memory:');
    await migrate(db);
    let now = 0;
    const limiter = createRateLimiter({ db, clock: { now: () => now } });
    const hit = (at: number) => {
      now = at;
      return db
        .tx((q) => limiter.take('b', { limit: 2, windowMs: 60_000 }, q))
        .then(
          () => 'ok',
          (e) => String(e.retryAfterSeconds),
        );
    };
    expect(await hit(1000)).toBe('ok');
    expect(await hit(2000)).toBe('ok');
    expect(await hit(31_000)).toBe('30');
    expect(await hit(60_999)).toBe('1');
    expect(await hit(61_000)).toBe('ok');
    expect(await db.get('SELECT count, window_start FROM rate_limits WHERE bucket = ?', ['b'])).toEqual({
      count: 1,
      window_start: 61_000,
    });
    await db.close();
  });

  it('counts every bucket of takeAll, reports the longest wait, and sweeps only the prefix it is given', async () => {
    const db = await Database.open(':memory:');
    await migrate(db);
    const clock = new ManualClock(0);
    const limiter = createRateLimiter({ db, clock });
    const buckets = [
      { key: 'a:ip:1', limit: 1, windowMs: 10_000 },
      { key: 'b:ip:1', limit: 1, windowMs: 60_000 },
    ];
    await limiter.takeAll(buckets);
    await expect(limiter.takeAll(buckets)).rejects.toMatchObject({ code: 'rate_limited', retryAfterSeconds: 60 });
    expect(await limiter.used('a:ip:1', buckets[0]!)).toBe(2);
    clock.set(100_000);
    expect(await limiter.used('a:ip:1', buckets[0]!)).toBe(0);
    await limiter.sweep('a:', 10_000);
    expect(await db.all('SELECT bucket FROM rate_limits ORDER BY bucket')).toEqual([{ bucket: 'b:ip:1' }]);
    await db.close();
  });

  it('counts hits on a file database without a caller transaction (reads there go to read-only connections)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'axle-limits-'));
    const db = await Database.open(path.join(dir, 'axle.db'));
    await migrate(db);
    const limiter = createRateLimiter({ db, clock: new ManualClock(0) });
    const rule = { limit: 1, windowMs: 10_000 };
    await limiter.take('f:ip:1', rule);
    await expect(limiter.take('f:ip:1', rule)).rejects.toMatchObject({ code: 'rate_limited', retryAfterSeconds: 10 });
    expect(await limiter.used('f:ip:1', rule)).toBe(2);
    await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
