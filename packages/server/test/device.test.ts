import { randomBytes } from 'node:crypto';
import { DEVICE_AUTH, LIMITS } from '@axle/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { open, publicKeyOf, seal } from '../src/domain/sealed-box.js';
import { formatUserCode, generateUserCode, normalizeUserCode } from '../src/domain/user-code.js';
import { ManualClock } from '../src/clock.js';
import { verifyAuditChain } from '../src/services/audit.js';
import { backendEnv } from '../../../test/support/backend.js';
import { startTestServer, type TestServer } from '../../../test/support/server.js';
import { linkIn, post, pressSignIn, type Smtp, startSmtp } from '../../../test/support/identity.js';

const SECOND = 1000;

describe('user codes', () => {
  it('are 8 letters of the unambiguous alphabet, shown with a dash', () => {
    for (let i = 0; i < 200; i++) {
      const code = generateUserCode();
      expect(code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{8}$/);
      expect(formatUserCode(code)).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    }
  });
  it('normalize case, dash and spaces, and refuse anything else', () => {
    expect(normalizeUserCode('wdjb-mjht')).toBe('WDJBMJHT');
    expect(normalizeUserCode(' WDJB MJHT ')).toBe('WDJBMJHT');
    expect(normalizeUserCode('WDJBMJHT')).toBe('WDJBMJHT');
    expect(normalizeUserCode('WDJB-MJH')).toBeNull();
    expect(normalizeUserCode('WDJB-MJHA')).toBeNull(); // vowel
    expect(normalizeUserCode('WDJB-MJH0')).toBeNull(); // digit
  });
});

describe('sealed box', () => {
  it('opens only with the secret it was sealed to', () => {
    const secret = randomBytes(32);
    const box = seal('axl_secret-key', publicKeyOf(secret));
    expect(box).not.toContain('axl_');
    expect(open(box, secret)).toBe('axl_secret-key');
    expect(() => open(box, randomBytes(32))).toThrow();
    const tampered = Buffer.from(box, 'base64url');
    tampered[tampered.length - 1]! ^= 1;
    expect(() => open(tampered.toString('base64url'), secret)).toThrow();
  });
});

interface Started {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

describe('device-code sign-in over HTTP', () => {
  let smtp: Smtp;
  let server: TestServer;
  beforeAll(async () => {
    smtp = await startSmtp();
    server = await startTestServer({ AXLE_SMTP_URL: smtp.url, AXLE_ADMIN_TOKEN: 'admin-token-for-tests' });
  });
  afterAll(async () => {
    await server.stop();
    await smtp.close();
  });

  const start = async (client_name = 'axle CLI on testbox'): Promise<Started> => {
    const res = await post(server, '/auth/device/code', { client_name });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    return res.json();
  };
  const poll = (device_code: string) => post(server, '/auth/device/token', { device_code });
  const pollError = async (device_code: string) => {
    const res = await poll(device_code);
    expect(res.status).toBe(400);
    return res.json() as Promise<{ error: string; error_description: string; interval?: number }>;
  };

  /** A browser session: the magic link followed as a browser (Accept: text/html) sets the session cookie. */
  async function browserSession(email: string): Promise<{ cookie: string; accountId: string }> {
    expect((await post(server, '/auth/magic-link', { email })).status).toBe(200);
    const res = await pressSignIn(linkIn(smtp.lastTo(email)!));
    const cookie = /^(axle_session=[^;]+)/.exec(res.headers.get('set-cookie') ?? '')![1]!;
    const accountId = (await server.db.get<{ id: string }>('SELECT id FROM accounts WHERE email = ?', [email]))!.id;
    return { cookie, accountId };
  }
  const devicePage = (cookie: string | null, userCode?: string, headers: Record<string, string> = {}) =>
    fetch(`${server.url}/device${userCode ? `?user_code=${encodeURIComponent(userCode)}` : ''}`, {
      headers: { ...(cookie ? { cookie } : {}), ...headers },
    });
  const csrfOf = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)?.[1];
  const decide = (
    cookie: string | null,
    fields: Record<string, string>,
    headers: Record<string, string> = { origin: server.url },
  ) =>
    fetch(`${server.url}/device`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie } : {}), ...headers },
      body: new URLSearchParams(fields).toString(),
    });
  /** Opens the approval page for the code and submits a decision with the page's own CSRF token. */
  async function approve(cookie: string, userCode: string, decision: 'approve' | 'deny' = 'approve') {
    const page = await devicePage(cookie, userCode);
    expect(page.status).toBe(200);
    const csrf = csrfOf(await page.text())!;
    return decide(cookie, { user_code: userCode, csrf, decision });
  }
  const advance = (ms: number) => server.clock.advance(ms);
  /** The cookie the device page's sign-in form sets, binding the mailed link to this browser. */
  const askCookieOf = (res: Response) => /(axle_device_ask=[^;]+)/.exec(res.headers.get('set-cookie') ?? '')![1]!;

  it('starts with the RFC 8628 fields, stores only hashes and hands the key out exactly once', async () => {
    const s = await start();
    expect(s).toEqual({
      device_code: expect.stringMatching(/^[\w-]{43}$/),
      user_code: expect.stringMatching(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/),
      verification_uri: `${server.url}/device`,
      verification_uri_complete: `${server.url}/device?user_code=${s.user_code}`,
      expires_in: 600,
      interval: 5,
    });
    const row = (await server.db.get<Record<string, unknown>>('SELECT * FROM device_codes WHERE user_code = ?', [
      s.user_code.replace('-', ''),
    ]))!;
    expect(JSON.stringify(row)).not.toContain(s.device_code);

    expect((await pollError(s.device_code)).error).toBe('authorization_pending');
    const { cookie, accountId } = await browserSession('approver@example.com');
    const done = await approve(cookie, s.user_code.toLowerCase()); // people may type it in lower case
    expect(done.status).toBe(200);
    expect(await done.text()).toContain('Device connected');

    advance(5 * SECOND);
    const res = await poll(s.device_code);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toEqual({
      api_key: expect.stringMatching(/^axl_/),
      account_id: accountId,
      email: 'approver@example.com',
    });

    // Exactly once: every later poll is invalid_grant.
    advance(5 * SECOND);
    expect((await pollError(s.device_code)).error).toBe('invalid_grant');
    advance(5 * SECOND);
    expect((await pollError(s.device_code)).error).toBe('invalid_grant');

    // The key works, carries all scopes and is named after the client; the raw key is kept nowhere.
    const status = await fetch(`${server.url}/account/terms-status`, { headers: { 'x-api-key': body.api_key } });
    expect(status.status).toBe(200);
    const key = (await server.db.get<{ name: string; scopes: string }>(
      'SELECT name, scopes FROM api_keys WHERE account_id = ?',
      [accountId],
    ))!;
    expect(key).toEqual({ name: 'device: axle CLI on testbox', scopes: 'search contribute account' });
    const after = (await server.db.get<Record<string, unknown>>('SELECT * FROM device_codes WHERE user_code = ?', [
      s.user_code.replace('-', ''),
    ]))!;
    expect(after.status).toBe('delivered');
    expect(after.sealed_key).toBeNull();
    for (const line of server.logs) {
      expect(line).not.toContain(body.api_key);
      expect(line).not.toContain(s.device_code);
    }
    const approved = await server.db.get<{ actor: string; data: string }>(
      "SELECT actor, data FROM audit_log WHERE action = 'device.approved' AND subject = ?",
      [accountId],
    );
    expect(approved!.actor).toBe(`account:${accountId}`);
    expect(JSON.parse(approved!.data)).toMatchObject({ client_name: 'axle CLI on testbox' });
    expect((await verifyAuditChain(server.db)).ok).toBe(true);
  });

  it('answers slow_down to a client polling faster than the interval, adding 5 s each time', async () => {
    const s = await start();
    expect((await pollError(s.device_code)).error).toBe('authorization_pending');
    // A second's grace: a poll is too soon when it comes more than a second before the interval is up.
    advance(4 * SECOND);
    expect((await pollError(s.device_code)).error).toBe('authorization_pending');
    advance(3 * SECOND);
    expect(await pollError(s.device_code)).toMatchObject({ error: 'slow_down', interval: 10 });
    advance(8 * SECOND);
    expect(await pollError(s.device_code)).toMatchObject({ error: 'slow_down', interval: 15 });
    advance(15 * SECOND);
    expect((await pollError(s.device_code)).error).toBe('authorization_pending');
    advance(15 * SECOND);
    expect((await pollError(s.device_code)).error).toBe('authorization_pending');
  });

  it('mints one key however often the code is approved', async () => {
    const s = await start('double-approve client');
    const { cookie, accountId } = await browserSession('twice@example.com');
    const page = await (await devicePage(cookie, s.user_code)).text();
    const csrf = csrfOf(page)!;
    const [a, b] = await Promise.all([
      decide(cookie, { user_code: s.user_code, csrf, decision: 'approve' }),
      decide(cookie, { user_code: s.user_code, csrf, decision: 'approve' }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 404]);
    const third = await decide(cookie, { user_code: s.user_code, csrf, decision: 'approve' });
    expect(third.status).toBe(404);
    expect(
      (await server.db.get<{ n: number }>('SELECT count(*) AS n FROM api_keys WHERE account_id = ?', [accountId]))!.n,
    ).toBe(1);
    expect(
      (await server.db.get<{ n: number }>(
        "SELECT count(*) AS n FROM audit_log WHERE action = 'device.approved' AND subject = ?",
        [accountId],
      ))!.n,
    ).toBe(1);
    const polls = await Promise.all([poll(s.device_code), poll(s.device_code), poll(s.device_code)]);
    expect(polls.map((r) => r.status).sort()).toEqual([200, 400, 400]);
  });

  it('denial ends in access_denied and the code cannot be approved afterwards', async () => {
    const s = await start();
    const { cookie, accountId } = await browserSession('denier@example.com');
    const res = await approve(cookie, s.user_code, 'deny');
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('Request denied');
    advance(5 * SECOND);
    expect((await pollError(s.device_code)).error).toBe('access_denied');
    expect((await devicePage(cookie, s.user_code)).status).toBe(404);
    expect(
      (await server.db.get<{ n: number }>('SELECT count(*) AS n FROM api_keys WHERE account_id = ?', [accountId]))!.n,
    ).toBe(0);
  });

  it('expires after 600 s by the injected clock', async () => {
    const s = await start();
    const { cookie } = await browserSession('late@example.com');
    advance(599 * SECOND);
    expect((await pollError(s.device_code)).error).toBe('authorization_pending');
    expect((await devicePage(cookie, s.user_code)).status).toBe(200);
    advance(1 * SECOND);
    expect((await pollError(s.device_code)).error).toBe('expired_token');
    expect((await devicePage(cookie, s.user_code)).status).toBe(404);
  });

  it('expires an approved code whose key was never collected', async () => {
    const s = await start();
    const { cookie } = await browserSession('approved-late@example.com');
    expect((await approve(cookie, s.user_code)).status).toBe(200);
    advance(600 * SECOND);
    expect((await pollError(s.device_code)).error).toBe('expired_token');
  });

  it('answers invalid_grant to an unknown device_code and 400 to a malformed request', async () => {
    expect((await pollError('not-a-real-device-code')).error).toBe('invalid_grant');
    expect((await post(server, '/auth/device/token', {})).status).toBe(400);
    expect((await post(server, '/auth/device/token', { device_code: 'x', grant_type: 'password' })).status).toBe(400);
    expect((await post(server, '/auth/device/code', { client_name: 'x'.repeat(65) })).status).toBe(400);
  });

  it('serves the page with a CSP, no framing, no scripts, and escapes the client name', async () => {
    const s = await start('<script>alert(1)</script> "evil"');
    const { cookie } = await browserSession('headers@example.com');
    for (const res of [await devicePage(null, s.user_code), await devicePage(cookie, s.user_code)]) {
      expect(res.status).toBe(200);
      const csp = res.headers.get('content-security-policy')!;
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("form-action 'self'");
      expect(csp).not.toContain('script-src');
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      const html = await res.text();
      expect(html).not.toMatch(/<script/i);
    }
    const html = await (await devicePage(cookie, s.user_code)).text();
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &quot;evil&quot;');
    expect(html).toContain(s.user_code);
  });

  it('strips control and bidirectional-formatting characters from the client name and bounds it', async () => {
    const s = await start('\u202Eevil\u202C\u0000 CLI\u001b[31m on\u2066 box\u0085');
    const stored = await server.db.get<{ client_name: string }>(
      'SELECT client_name FROM device_codes WHERE user_code = ?',
      [s.user_code.replace('-', '')],
    );
    expect(stored!.client_name).toBe('evil CLI[31m on box');
    const { cookie } = await browserSession('bidi@example.com');
    const html = await (await devicePage(cookie, s.user_code)).text();
    expect(html).toContain('<dd data-testid="client-name">evil CLI[31m on box</dd>');
    // Nothing visible is left: the default name is shown.
    const blank = await start('\u202E\u0000\u001b');
    expect(await (await devicePage(cookie, blank.user_code)).text()).toContain('Unknown client');
  });

  it('refuses POST /auth/device/code and /auth/magic-link sent by another site, form or JSON', async () => {
    const evil = { origin: 'https://evil.example' };
    const form = (path: string, body: Record<string, string>, headers: Record<string, string>) =>
      fetch(server.url + path, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body: new URLSearchParams(body).toString(),
      });
    const mails = smtp.inbox.length;
    for (const res of [
      await form('/auth/magic-link', { email: 'victim@example.com' }, evil),
      await post(server, '/auth/magic-link', { email: 'victim@example.com' }, evil),
      await post(server, '/auth/magic-link', { email: 'victim@example.com' }, { 'sec-fetch-site': 'cross-site' }),
      await form('/auth/device/code', { client_name: 'x' }, evil),
      await post(server, '/auth/device/code', { client_name: 'x' }, { origin: 'null' }),
    ]) {
      expect(res.status).toBe(403);
      expect(await res.json()).toMatchObject({ code: 'forbidden' });
    }
    expect(smtp.inbox.length).toBe(mails);
    // Same-origin and non-browser clients are served.
    expect(
      (await post(server, '/auth/magic-link', { email: 'victim@example.com' }, { origin: server.url })).status,
    ).toBe(200);
    expect((await post(server, '/auth/device/code', {})).status).toBe(200);
  });

  it('refuses decisions without a session, without or with a wrong CSRF token, or from another origin', async () => {
    const s = await start();
    const alice = await browserSession('alice-csrf@example.com');
    const bob = await browserSession('bob-csrf@example.com');
    const aliceToken = csrfOf(await (await devicePage(alice.cookie, s.user_code)).text())!;
    const bobToken = csrfOf(await (await devicePage(bob.cookie, s.user_code)).text())!;
    expect(aliceToken).not.toBe(bobToken);

    const fields = { user_code: s.user_code, decision: 'approve' };
    expect((await decide(null, { ...fields, csrf: aliceToken })).status).toBe(401);
    expect((await decide(alice.cookie, fields)).status).toBe(403);
    expect((await decide(alice.cookie, { ...fields, csrf: 'wrong' })).status).toBe(403);
    expect((await decide(alice.cookie, { ...fields, csrf: bobToken })).status).toBe(403);
    expect(
      (await decide(alice.cookie, { ...fields, csrf: aliceToken }, { origin: 'https://evil.example' })).status,
    ).toBe(403);
    expect(
      (
        await decide(
          alice.cookie,
          { ...fields, csrf: aliceToken },
          { origin: server.url, 'sec-fetch-site': 'cross-site' },
        )
      ).status,
    ).toBe(403);
    expect((await pollError(s.device_code)).error).toBe('authorization_pending');

    // The same request from the page itself goes through.
    expect((await decide(alice.cookie, { ...fields, csrf: aliceToken })).status).toBe(200);
  });

  it('limits failed user-code lookups per IP (10 per 15 minutes), counted in the database', async () => {
    advance(15 * 60 * SECOND); // a fresh window, whatever misses earlier tests counted from this IP
    const s = await start();
    const { cookie } = await browserSession('guesser@example.com');
    for (let i = 0; i < DEVICE_AUTH.failedLookups.perIp; i++) {
      expect((await devicePage(cookie, 'BBBB-BBBB')).status).toBe(404);
    }
    const limited = await devicePage(cookie, 'BBBB-BBBB');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // Once limited, even the right code is refused, so guessing cannot confirm a hit.
    expect((await devicePage(cookie, s.user_code)).status).toBe(429);
    expect((await decide(cookie, { user_code: s.user_code, csrf: 'x', decision: 'approve' })).status).toBe(403);
    const row = await server.db.get<{ count: number }>(
      "SELECT count FROM rate_limits WHERE bucket LIKE 'device-user-code:ip:%'",
    );
    expect(row!.count).toBe(DEVICE_AUTH.failedLookups.perIp);

    advance(15 * 60 * SECOND);
    const fresh = await start();
    expect((await devicePage(cookie, fresh.user_code)).status).toBe(200);
  });

  it('refuses approval from a suspended account', async () => {
    const s = await start();
    const { cookie, accountId } = await browserSession('suspended@example.com');
    const suspend = await post(
      server,
      `/admin/accounts/${accountId}/suspend`,
      {},
      { authorization: 'Bearer admin-token-for-tests' },
    );
    expect(suspend.status).toBe(200);
    expect((await approve(cookie, s.user_code)).status).toBe(403);
    expect((await pollError(s.device_code)).error).toBe('authorization_pending');
  });

  it('asks a signed-in person for the code when the link had none', async () => {
    const { cookie } = await browserSession('typist@example.com');
    const res = await devicePage(cookie);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('Signed in as typist@example.com');
    expect(html).toMatch(/<form method="get" action="\/device">[\s\S]*name="user_code"/);
  });

  it("signs the browser out with the page's form, so another person can sign in on the same browser", async () => {
    const s = await start();
    const { cookie } = await browserSession('shared-desk@example.com');
    const html = await (await devicePage(cookie, s.user_code)).text();
    expect(html).toContain('Not shared-desk@example.com?');
    const csrf = csrfOf(html)!;
    const signOut = (fields: Record<string, string>, headers: Record<string, string> = { origin: server.url }) =>
      fetch(`${server.url}/device/sign-out`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, ...headers },
        body: new URLSearchParams(fields).toString(),
      });
    // Another site, no token or another session's token: refused, the cookie stays.
    for (const res of [
      await signOut({ csrf, user_code: s.user_code }, { origin: 'https://evil.example' }),
      await signOut({ user_code: s.user_code }),
      await signOut({ csrf: 'wrong', user_code: s.user_code }),
    ]) {
      expect(res.status).toBe(403);
      expect(res.headers.get('set-cookie')).toBeNull();
    }
    const out = await signOut({ csrf, user_code: s.user_code });
    expect(out.status).toBe(303);
    expect(out.headers.get('location')).toBe(`/device?user_code=${encodeURIComponent(s.user_code)}`);
    expect(out.headers.get('set-cookie')).toMatch(/^axle_session=; Path=\/; Max-Age=0; HttpOnly; SameSite=Lax/);
    // Without the cookie the page offers the sign-in again, keeping the code.
    const after = await (await devicePage(null, s.user_code)).text();
    expect(after).toContain('Email me a sign-in link');
    expect(after).toContain(`name="user_code" value="${s.user_code}"`);
    // The page without a code signs out too (back to /device); signed out already, the same answer.
    const typist = await browserSession('typist-out@example.com');
    const enter = await (await devicePage(typist.cookie)).text();
    expect(enter).toContain('Signed in as typist-out@example.com');
    const res = await fetch(`${server.url}/device/sign-out`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: typist.cookie, origin: server.url },
      body: new URLSearchParams({ csrf: csrfOf(enter)! }).toString(),
    });
    expect([res.status, res.headers.get('location')]).toEqual([303, '/device']);
    const again = await fetch(`${server.url}/device/sign-out`, { method: 'POST', redirect: 'manual' });
    expect([again.status, again.headers.get('location')]).toEqual([303, '/device']);
  });

  it('limits new device codes per IP (30 per 15 minutes)', async () => {
    advance(15 * 60 * SECOND);
    for (let i = 0; i < DEVICE_AUTH.startsPerIp; i++)
      expect((await post(server, '/auth/device/code', {})).status).toBe(200);
    const refused = await post(server, '/auth/device/code', {});
    expect(refused.status).toBe(429);
    expect((await refused.json()).code).toBe('rate_limited');
    advance(15 * 60 * SECOND);
    expect((await post(server, '/auth/device/code', {})).status).toBe(200);
  });

  it('offers the magic-link sign-in when signed out, continuing to the code after the link', async () => {
    const s = await start();
    const page = await devicePage(null, s.user_code);
    const html = await page.text();
    expect(html).toContain('action="/device/sign-in"');
    // Nothing about the request is revealed before sign-in; the typed code is only carried along.
    expect(html).not.toContain('axle CLI on testbox');
    expect(html).not.toContain('Approve');
    expect(html).toContain(`name="user_code" value="${s.user_code}"`);
    const form = (fields: Record<string, string>, origin = server.url) =>
      fetch(`${server.url}/device/sign-in`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
        body: new URLSearchParams(fields).toString(),
      });
    expect((await form({ email: 'not-an-email' })).status).toBe(400);
    expect((await form({ email: 'x@example.com' }, 'https://evil.example')).status).toBe(403);
    const sent = await form({ email: 'newcomer@example.com', user_code: s.user_code });
    expect(sent.status).toBe(200);
    expect(await sent.text()).toContain('Check your email');
    // The sign-in button alone (no device page in between) goes on to the approval, in the browser that asked.
    const other = await start();
    const asked = askCookieOf(await form({ email: 'pressed@example.com', user_code: other.user_code }));
    const landing = await fetch(`${server.url}/auth/verify`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'text/html',
        origin: server.url,
        cookie: asked,
      },
      body: new URLSearchParams({ token: linkIn(smtp.lastTo('pressed@example.com')!).searchParams.get('token')! }),
      redirect: 'manual',
    });
    expect(landing.status).toBe(303);
    expect(landing.headers.get('location')).toMatch(
      new RegExp(`^/device\\?user_code=${other.user_code}&ask=[\\w-]{43}$`),
    );
    expect(landing.headers.get('set-cookie')).toMatch(/^axle_session=/);
  });

  it('the mailed link opens the approval itself; one Approve signs in and approves, and the link then works no more', async () => {
    const s = await start('axle CLI on linkbox');
    const mailFor = async (email: string, userCode: string) => {
      const sent = await fetch(`${server.url}/device/sign-in`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: server.url },
        body: new URLSearchParams({ email, user_code: userCode }).toString(),
      });
      expect(sent.status).toBe(200);
      return { link: linkIn(smtp.lastTo(email)!), asked: askCookieOf(sent) };
    };
    const { link, asked } = await mailFor('linked@example.com', s.user_code);
    const token = link.searchParams.get('token')!;
    // A mail scanner (HEAD, then GET as a browser) follows the redirect: nothing is used up or decided.
    let approvalPath = '';
    for (const method of ['HEAD', 'GET']) {
      const opened = await fetch(link, {
        method,
        headers: { accept: 'text/html', cookie: asked },
        redirect: 'manual',
      });
      expect(opened.status).toBe(303);
      approvalPath = opened.headers.get('location')!;
      expect(approvalPath).toMatch(new RegExp(`^/device\\?user_code=${s.user_code}&ask=[\\w-]{43}&link=${token}$`));
      expect(opened.headers.get('referrer-policy')).toBe('no-referrer');
    }
    const approval = await fetch(new URL(approvalPath, server.url), { headers: { cookie: asked } });
    expect(approval.status).toBe(200);
    const html = await approval.text();
    expect(html).toContain(s.user_code);
    expect(html).toContain('axle CLI on linkbox');
    expect(html).toContain('linked@example.com');
    expect(html).toContain(`name="link" value="${token}"`);
    expect(html).not.toContain('name="csrf"');
    expect((await pollError(s.device_code)).error).toBe('authorization_pending');

    // Another site cannot press the button (even knowing the fields), nor can a made-up token.
    expect(
      (
        await decide(
          null,
          { user_code: s.user_code, link: token, decision: 'approve' },
          { origin: 'https://evil.example' },
        )
      ).status,
    ).toBe(403);
    const forged = await decide(asked, { user_code: s.user_code, link: 'x'.repeat(43), decision: 'approve' });
    expect(forged.status).toBe(401);
    advance(s.interval * SECOND);
    expect((await pollError(s.device_code)).error).toBe('authorization_pending');

    const done = await decide(asked, { user_code: s.user_code, link: token, decision: 'approve' });
    expect(done.status).toBe(200);
    expect(await done.text()).toContain('Device connected');
    const cookie = /^(axle_session=[^;]+)/.exec(done.headers.get('set-cookie') ?? '')![1]!;
    expect(await (await devicePage(cookie)).text()).toContain('Signed in as linked@example.com');
    advance(s.interval * SECOND);
    const granted = await poll(s.device_code);
    expect(granted.status).toBe(200);
    expect((await granted.json()).email).toBe('linked@example.com');

    // The used link: the page no longer shows an approval for it, and a second press is refused.
    const again = await fetch(new URL(approvalPath, server.url), { headers: { cookie: asked } });
    expect(await again.text()).toContain('already used or expired');
    const s2 = await start();
    expect((await decide(asked, { user_code: s2.user_code, link: token, decision: 'approve' })).status).toBe(401);
    // An expired link is refused the same way.
    const late = await mailFor('late@example.com', s2.user_code);
    advance(16 * 60 * SECOND);
    const lateToken = late.link.searchParams.get('token')!;
    expect((await decide(late.asked, { user_code: s2.user_code, link: lateToken, decision: 'approve' })).status).toBe(
      401,
    );
  });

  // Found by asking for a sign-in link for someone else's address with curl: the server mailed the victim a genuine
  // Axle link that opened the approval of the asker's device code, one click from handing the asker a key.
  it("a link asked for outside the person's browser never opens or continues to a device approval", async () => {
    const s = await start('Axle web sign-in');
    const victim = 'phished@example.com';
    const tokenOf = () => linkIn(smtp.lastTo(victim)!).searchParams.get('token')!;
    // The asker's own client: the device page's form without a browser's Origin, and the JSON API with `next`.
    const viaForm = await fetch(`${server.url}/device/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email: victim, user_code: s.user_code }).toString(),
    });
    expect(viaForm.status).toBe(200);
    const formToken = tokenOf();
    expect(
      (await post(server, '/auth/magic-link', { email: victim, next: `/device?user_code=${s.user_code}` })).status,
    ).toBe(200);
    const jsonToken = tokenOf();
    for (const token of [formToken, jsonToken]) {
      // The victim's browser opens the mail: a plain sign-in page, not a redirect to the approval.
      const opened = await fetch(`${server.url}/auth/verify?token=${token}`, {
        headers: { accept: 'text/html' },
        redirect: 'manual',
      });
      expect(opened.status).toBe(200);
      expect(opened.headers.get('location')).toBeNull();
      const approval = await fetch(`${server.url}/device?user_code=${s.user_code}&link=${token}`);
      const html = await approval.text();
      expect(html).not.toContain('Approve');
      expect(html).not.toContain('Axle web sign-in');
      expect(html).not.toContain(`name="link"`);
      const pressed = await decide(null, { user_code: s.user_code, link: token, decision: 'approve' });
      expect(pressed.status).toBe(403);
      expect(pressed.headers.get('set-cookie')).toBeNull();
    }
    // The sign-in button signs the victim in but does not continue to the asker's approval.
    const landing = await fetch(`${server.url}/auth/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html', origin: server.url },
      body: new URLSearchParams({ token: jsonToken }).toString(),
      redirect: 'manual',
    });
    expect(landing.status).toBe(200);
    expect(landing.headers.get('location')).toBeNull();
    expect(await landing.text()).toContain('Signed in');
    // Nor does a `next` that names the device page in another spelling the router also answers.
    for (const next of [
      `/DEVICE?user_code=${s.user_code}`,
      `/device/?user_code=${s.user_code}`,
      `/./device?user_code=${s.user_code}`,
      `/device?x=1&user_code=${s.user_code}`,
    ]) {
      const email = `phished-${next.length}-${next.charCodeAt(2)}@example.com`;
      expect((await post(server, '/auth/magic-link', { email, next })).status).toBe(200);
      const pressed = await fetch(`${server.url}/auth/verify`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html', origin: server.url },
        body: new URLSearchParams({ token: linkIn(smtp.lastTo(email)!).searchParams.get('token')! }).toString(),
        redirect: 'manual',
      });
      expect(pressed.status, next).toBe(200);
      expect(pressed.headers.get('location')).toBeNull();
    }
    advance(s.interval * SECOND);
    expect((await pollError(s.device_code)).error).toBe('authorization_pending');
  });

  // Found by approving device codes in a loop: each approval minted a key outside the account's key-creation
  // limit, so the device page made keys (and audit entries) as fast as codes could be started.
  it('counts each approval as a key creation, under the same per-account limit as POST /account/api-keys', async () => {
    advance(15 * 60 * SECOND);
    const { cookie, accountId } = await browserSession('many-devices@example.com');
    const { perMinute } = LIMITS.accountWrites.apiKeyCreate;
    const codes: Started[] = [];
    for (let i = 0; i <= perMinute; i++) codes.push(await start(`device ${i}`));
    for (const s of codes.slice(0, perMinute)) expect((await approve(cookie, s.user_code)).status).toBe(200);
    const keys = () => server.db.get('SELECT COUNT(*) AS n FROM api_keys WHERE account_id = ?', [accountId]);
    const before = await keys();

    const last = codes[perMinute]!;
    const refused = await approve(cookie, last.user_code);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('60');
    expect(await refused.text()).toContain('Too many attempts');
    expect(await keys()).toEqual(before);
    // The refusal cost the code nothing: it is still pending, and is approved once the minute is over.
    expect((await pollError(last.device_code)).error).toBe('authorization_pending');
    advance(60 * SECOND);
    expect((await approve(cookie, last.user_code)).status).toBe(200);
    advance(last.interval * SECOND);
    expect((await poll(last.device_code)).status).toBe(200);
    advance(15 * 60 * SECOND);
  });
});

describe('device-code polls spread over two instances on one database', () => {
  // Found by polling at the interval through two instances whose clocks differ by half a second: each poll reaching
  // the one behind, after one the other recorded, looked early by its clock, so it answered slow_down and the interval
  // grew by 5 s each time, though the client waited the whole interval.
  it('a client waiting the interval is not slowed down by a clock half a second behind the last poll', async () => {
    const env = await backendEnv('catalog');
    const ahead = await startTestServer(env, { clock: new ManualClock(Date.parse('2026-01-01T00:00:00.500Z')) });
    const behind = await startTestServer(env, {
      clock: new ManualClock(Date.parse('2026-01-01T00:00:00Z')),
      dataDir: ahead.dataDir,
    });
    try {
      const s = (await (await post(ahead, '/auth/device/code', { client_name: 'two instances' })).json()) as Started;
      const pollOn = async (server: TestServer) =>
        (await post(server, '/auth/device/token', { device_code: s.device_code })).json();
      // As axle login polls: the interval it was given, longer after slow_down.
      let interval = s.interval;
      const answers: Array<{ error: string; interval?: number }> = [];
      for (let i = 0; i < 4; i++) {
        const answer = (await pollOn(i % 2 === 0 ? ahead : behind)) as { error: string; interval?: number };
        answers.push(answer);
        interval = answer.interval ?? interval;
        for (const server of [ahead, behind]) server.clock.advance(interval * SECOND);
      }
      expect(answers).toEqual(Array(4).fill(expect.objectContaining({ error: 'authorization_pending' })));
    } finally {
      await behind.stop({ keepData: true });
      await ahead.stop();
    }
  });
});
