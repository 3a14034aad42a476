import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/support/server.js';
import { bearer, post, type Smtp, signIn, startSmtp } from '../../../test/support/identity.js';

const ADMIN = 'admin-token-0123456789-abcdefghij';
const READ = 'read-token-9876543210';

const subOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString()).sub as string;

describe('admin tokens and suspended accounts', () => {
  let smtp: Smtp;
  let server: TestServer;
  let jwt: string;
  let accountId: string;
  beforeAll(async () => {
    smtp = await startSmtp();
    server = await startTestServer({ AXLE_SMTP_URL: smtp.url, AXLE_ADMIN_TOKEN: ADMIN, AXLE_ADMIN_READ_TOKEN: READ });
    jwt = await signIn(server, smtp, 'member@example.com');
    accountId = subOf(jwt);
  });
  afterAll(async () => {
    await server.stop();
    await smtp.close();
  });

  const summary = (token?: string) =>
    fetch(`${server.url}/admin/accounts/${accountId}`, { headers: token ? bearer(token) : {} });
  const act = (action: 'suspend' | 'unsuspend', token: string, id = accountId) =>
    post(server, `/admin/accounts/${id}/${action}`, {}, bearer(token));

  it('lets both tokens read and only the admin token act', async () => {
    for (const token of [ADMIN, READ]) {
      const res = await summary(token);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        id: accountId,
        email: 'member@example.com',
        wallet: null,
        suspended: false,
        created_at: server.clock.now(),
        api_key_count: 0,
      });
    }
    const readOnly = await act('suspend', READ);
    expect(readOnly.status).toBe(403);
    expect(await readOnly.json()).toMatchObject({ code: 'insufficient_scope', required_scope: 'admin' });
  });

  it.each([
    ['no token', undefined],
    ['a wrong token of the same length', ADMIN.replace(/.$/, 'X')],
    ['a prefix of the admin token', ADMIN.slice(0, 10)],
    ['a user session token', 'jwt'],
  ])('refuses %s with 401', async (_name, token) => {
    const res = await summary(token === 'jwt' ? jwt : token);
    expect(res.status).toBe(401);
    expect((await act('suspend', token === 'jwt' ? jwt : (token ?? ''))).status).toBe(401);
  });

  it('suspends (audit-logged): the account may still sign in but may not mint keys until reinstated', async () => {
    const res = await act('suspend', ADMIN);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toEqual({ account_id: accountId, suspended: true, audit_ref: expect.stringMatching(/^aud_/) });
    expect(await server.db.get('SELECT actor, action, subject FROM audit_log WHERE id = ?', [body.audit_ref])).toEqual({
      actor: 'admin',
      action: 'account.suspended',
      subject: accountId,
    });
    expect((await (await summary(READ)).json()).suspended).toBe(true);

    const refused = await post(server, '/account/api-keys', {}, bearer(jwt));
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ error: 'Account suspended', code: 'account_suspended' });
    expect((await fetch(`${server.url}/account/dashboard`, { headers: bearer(jwt) })).status).toBe(200);

    expect((await act('unsuspend', ADMIN)).status).toBe(200);
    expect((await post(server, '/account/api-keys', {}, bearer(jwt))).status).toBe(200);
  });

  it('answers 404 for an unknown account and 400 for a malformed id', async () => {
    expect((await fetch(`${server.url}/admin/accounts/acc_doesnotexist`, { headers: bearer(READ) })).status).toBe(404);
    expect((await act('suspend', ADMIN, 'acc_doesnotexist')).status).toBe(404);
    expect(
      (await fetch(`${server.url}/admin/accounts/robert'); DROP TABLE accounts;--`, { headers: bearer(READ) })).status,
    ).toBe(400);
  });
});

describe('admin routes with no tokens configured', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.stop());

  it('refuses every admin request with 401', async () => {
    for (const token of ['', 'anything', 'undefined']) {
      const res = await fetch(`${server.url}/admin/accounts/acc_x`, { headers: token ? bearer(token) : {} });
      expect(res.status).toBe(401);
    }
  });
});
