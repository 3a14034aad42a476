import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyAuditChain } from '../src/services/audit.js';
import { startTestServer, type TestServer } from '../../../test/support/server.js';
import { bearer, post, type Smtp, signIn, startSmtp } from '../../../test/support/identity.js';

const SECOND = 1000;

describe('API keys', () => {
  let smtp: Smtp;
  let server: TestServer;
  let jwt: string;
  let otherJwt: string;
  beforeAll(async () => {
    smtp = await startSmtp();
    server = await startTestServer({ AXLE_SMTP_URL: smtp.url });
    jwt = await signIn(server, smtp, 'keys@example.com');
    otherJwt = await signIn(server, smtp, 'other@example.com');
  });
  afterAll(async () => {
    await server.stop();
    await smtp.close();
  });

  const create = (token: string, body: unknown = {}) => post(server, '/account/api-keys', body, bearer(token));
  const list = (headers: Record<string, string>) => fetch(`${server.url}/account/api-keys`, { headers });
  const revoke = (token: string, id: string) =>
    fetch(`${server.url}/account/api-keys/${id}`, { method: 'DELETE', headers: bearer(token) });

  it('creates an axl_ key shown once, stored as SHA-256 only, with an audit entry', async () => {
    const res = await fetch(`${server.url}/account/api-keys`, { method: 'POST', headers: bearer(jwt) }); // no body at all
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store'); // the raw key is in this response only
    const key = await res.json();
    expect(key).toEqual({
      id: expect.stringMatching(/^key_[A-Za-z0-9]+$/),
      api_key: expect.stringMatching(/^axl_[0-9A-Za-z]{43}$/),
      name: 'default',
      scopes: ['search', 'contribute', 'account'],
      created_at: server.clock.now(),
      audit_ref: expect.stringMatching(/^aud_/),
    });
    const stored = await server.db.all('SELECT * FROM api_keys WHERE id = ?', [key.id]);
    expect(stored).toHaveLength(1);
    expect(JSON.stringify(stored)).not.toContain(key.api_key);
    expect(stored[0]!.key_hash).toBe(createHash('sha256').update(key.api_key).digest('hex'));
    expect(await server.db.get('SELECT action, subject FROM audit_log WHERE id = ?', [key.audit_ref])).toEqual({
      action: 'key.created',
      subject: key.id,
    });
    expect(JSON.stringify(await server.db.all('SELECT * FROM audit_log'))).not.toContain(key.api_key);
  });

  it('accepts the key as X-API-Key and as Authorization: Bearer, and refreshes last_used_at at most once a minute', async () => {
    const { id, api_key } = await (await create(jwt, { name: 'laptop' })).json();
    const lastUsed = async () =>
      (await server.db.get<{ t: number | null }>('SELECT last_used_at AS t FROM api_keys WHERE id = ?', [id]))!.t;
    expect(await lastUsed()).toBeNull();

    const t0 = server.clock.now();
    expect((await list({ 'x-api-key': api_key })).status).toBe(200);
    expect(await lastUsed()).toBe(t0);
    server.clock.advance(30 * SECOND);
    expect((await list(bearer(api_key))).status).toBe(200);
    expect(await lastUsed()).toBe(t0);
    server.clock.advance(31 * SECOND);
    expect((await list(bearer(api_key))).status).toBe(200);
    expect(await lastUsed()).toBe(t0 + 61 * SECOND);

    const body = await (await list(bearer(jwt))).json();
    const listed = body.api_keys.find((k: { id: string }) => k.id === id);
    expect(listed).toEqual({
      id,
      name: 'laptop',
      scopes: ['search', 'contribute', 'account'],
      created_at: t0,
      last_used_at: t0 + 61 * SECOND,
    });
    expect(JSON.stringify(body)).not.toMatch(/axl_|key_hash/);
  });

  it.each([
    ['an unknown well-formed key', { 'x-api-key': `axl_${'A'.repeat(43)}` }],
    ['a malformed key', { 'x-api-key': 'axl_short' }],
    ['an unknown bearer key', bearer(`axl_${'b'.repeat(43)}`)],
  ])('answers %s with 401 Invalid API key', async (_name, headers) => {
    const res = await list(headers);
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: 'Invalid API key', code: 'invalid_api_key' });
  });

  it('revokes a key at once, with an audit entry; someone else cannot revoke it', async () => {
    const { id, api_key } = await (await create(jwt, { name: 'temp' })).json();
    const foreign = await revoke(otherJwt, id);
    expect(foreign.status).toBe(404);
    expect((await list({ 'x-api-key': api_key })).status).toBe(200);

    const res = await revoke(jwt, id);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toEqual({ revoked: true, id, audit_ref: expect.stringMatching(/^aud_/) });
    expect(await server.db.get('SELECT action, subject FROM audit_log WHERE id = ?', [body.audit_ref])).toEqual({
      action: 'key.revoked',
      subject: id,
    });

    const after = await list({ 'x-api-key': api_key });
    expect(after.status).toBe(401);
    expect((await after.json()).error).toBe('Invalid API key');
    // Search routes take a key optionally, but a revoked one is refused there too.
    const search = await post(server, '/discover', { query: 'weather' }, { 'x-api-key': api_key });
    expect(search.status).toBe(401);
    expect((await search.json()).error).toBe('Invalid API key');
    expect((await revoke(jwt, id)).status).toBe(404);
    expect((await revoke(jwt, 'not-a-key-id')).status).toBe(400);
    expect((await verifyAuditChain(server.db)).ok).toBe(true);
  });

  it('DELETE /account/api-key revokes the key it is sent with, whatever its scopes, and no other', async () => {
    const own = await (await create(jwt, { name: 'device: cli', scopes: ['search'] })).json();
    const sibling = await (await create(jwt, { name: 'sibling' })).json();
    const giveUp = (key: string) =>
      fetch(`${server.url}/account/api-key`, { method: 'DELETE', headers: { 'x-api-key': key } });
    const res = await giveUp(own.api_key);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toEqual({ revoked: true, id: own.id, audit_ref: expect.stringMatching(/^aud_/) });
    expect(await server.db.get('SELECT action, subject FROM audit_log WHERE id = ?', [body.audit_ref])).toEqual({
      action: 'key.revoked',
      subject: own.id,
    });
    expect((await list({ 'x-api-key': own.api_key })).status).toBe(401);
    expect((await giveUp(own.api_key)).status).toBe(401);
    expect((await list({ 'x-api-key': sibling.api_key })).status).toBe(200);
    // A session token is not a key: nothing to give up.
    expect((await fetch(`${server.url}/account/api-key`, { method: 'DELETE', headers: bearer(jwt) })).status).toBe(401);
  });

  it('enforces scopes: a key without the needed scope gets 403 insufficient_scope', async () => {
    const res = await create(jwt, { name: 'search only', scopes: ['search'] });
    const { api_key, scopes } = await res.json();
    expect(scopes).toEqual(['search']);
    const denied = await list({ 'x-api-key': api_key });
    expect(denied.status).toBe(403);
    expect(await denied.json()).toMatchObject({ code: 'insufficient_scope', required_scope: 'account' });
    const search = await post(
      server,
      '/discover',
      { query: 'weather forecast', limit: 2 },
      { authorization: `Bearer ${api_key}` },
    );
    expect(search.status).toBe(200);
    expect((await search.json()).results).toHaveLength(2);
  });

  it('creates keys only with a session token, and validates the body', async () => {
    const { api_key } = await (await create(jwt)).json();
    expect((await post(server, '/account/api-keys', {}, { 'x-api-key': api_key })).status).toBe(401);
    expect((await post(server, '/account/api-keys', {})).status).toBe(401);
    for (const body of [{ scopes: ['root'] }, { scopes: [] }, { name: '' }, { name: 7 }]) {
      const bad = await create(jwt, body);
      expect(bad.status).toBe(400);
      expect((await bad.json()).code).toBe('validation_error');
    }
  });

  it('shows the dashboard: email, wallet and key summaries, never raw keys or hashes', async () => {
    const fresh = await signIn(server, smtp, 'dash@example.com');
    const a = await (await create(fresh, { name: 'one' })).json();
    server.clock.advance(SECOND);
    const b = await (await create(fresh, { name: 'two' })).json();
    await revoke(fresh, a.id);
    const res = await fetch(`${server.url}/account/dashboard`, { headers: bearer(fresh) });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({
      email: 'dash@example.com',
      wallet: null,
      api_keys: [{ id: b.id, name: 'two', created_at: b.created_at }],
    });
    expect(text).not.toContain(b.api_key);
    expect(text).not.toMatch(/[0-9a-f]{64}/);

    expect((await fetch(`${server.url}/account/dashboard`)).status).toBe(401);
    expect((await fetch(`${server.url}/account/dashboard`, { headers: { 'x-api-key': b.api_key } })).status).toBe(401);
  });
});

describe('secrets never reach the logs (SMTP mode)', () => {
  it('logs no email, magic-link token, JWT or raw key across sign-in, key creation and key use', async () => {
    const smtp = await startSmtp();
    const server = await startTestServer({ AXLE_SMTP_URL: smtp.url });
    try {
      const email = 'private.person@example.com';
      const jwt = await signIn(server, smtp, email);
      const token = new URL(/https?:\/\/\S+/.exec(smtp.lastTo(email)!.text)![0]).searchParams.get('token')!;
      const { api_key } = await (await post(server, '/account/api-keys', { name: 'ci' }, bearer(jwt))).json();
      expect((await fetch(`${server.url}/account/api-keys`, { headers: { 'x-api-key': api_key } })).status).toBe(200);
      expect((await fetch(`${server.url}/account/api-keys`, { headers: bearer(api_key) })).status).toBe(200);
      expect((await fetch(`${server.url}/auth/verify?token=${token}`)).status).toBe(401);
      expect((await fetch(`${server.url}/account/dashboard`, { headers: bearer(jwt) })).status).toBe(200);

      const logs = server.logs.join('\n');
      expect(server.logs.length).toBeGreaterThan(5);
      for (const secret of [email, 'private.person', token, jwt, jwt.split('.')[2]!, api_key, api_key.slice(4)]) {
        expect(logs).not.toContain(secret);
      }
    } finally {
      await server.stop();
      await smtp.close();
    }
  });
});
