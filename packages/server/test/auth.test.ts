import fs from 'node:fs';
import path from 'node:path';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/support/server.js';
import { bearer, linkIn, post, pressSignIn, type Smtp, signIn, startSmtp } from '../../../test/support/identity.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

const decodeClaims = (jwt: string) =>
  JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
const dashboard = (server: TestServer, jwt: string) =>
  fetch(`${server.url}/account/dashboard`, { headers: bearer(jwt) });

describe('magic-link sign-in over a real SMTP server', () => {
  let smtp: Smtp;
  let server: TestServer;
  beforeAll(async () => {
    smtp = await startSmtp();
    server = await startTestServer({ AXLE_SMTP_URL: smtp.url, AXLE_JWT_SECRET: 'x'.repeat(40) });
  });
  afterAll(async () => {
    await server.stop();
    await smtp.close();
  });

  /** Requests a link and returns it, as received by the SMTP server. */
  async function requestLink(email: string, extra: Record<string, unknown> = {}): Promise<URL> {
    const res = await post(server, '/auth/magic-link', { email, ...extra });
    expect(res.status).toBe(200);
    return linkIn(smtp.lastTo(email.trim().toLowerCase())!);
  }

  // Found by reading the headers of every response that carries a secret: the session JWT came back without
  // Cache-Control, so a browser or a proxy was free to keep it (the GET one under the link's URL).
  it('answers the session token, by GET or POST, with Cache-Control: no-store', async () => {
    const byGet = await fetch(await requestLink('cache-get@example.com'), { headers: { accept: 'application/json' } });
    expect(byGet.status).toBe(200);
    expect((await byGet.json()).token).toBeTruthy();
    expect(byGet.headers.get('cache-control')).toBe('no-store');
    const token = (await requestLink('cache-post@example.com')).searchParams.get('token')!;
    const byPost = await post(server, '/auth/verify', { token });
    expect(byPost.status).toBe(200);
    expect((await byPost.json()).token).toBeTruthy();
    expect(byPost.headers.get('cache-control')).toBe('no-store');
  });

  it('mails a link that signs in once, creating the account, with a 24-hour JWT from the injected clock', async () => {
    const res = await post(server, '/auth/magic-link', { email: 'alice@example.com' });
    expect(res.status).toBe(200);
    const { message } = await res.json();
    const mail = smtp.lastTo('alice@example.com')!;
    expect(mail.subject).toMatch(/sign-in link/i);
    const link = linkIn(mail);
    expect(link.origin).toBe(server.url);
    expect(link.searchParams.get('token')!.length).toBeGreaterThanOrEqual(43); // 32 random bytes

    const verify = await fetch(link);
    expect(verify.status).toBe(200);
    const { token } = await verify.json();
    const claims = decodeClaims(token);
    expect(claims.sub).toMatch(/^acc_/);
    expect(claims.iat).toBe(server.clock.now() / 1000);
    expect(Number(claims.exp) - Number(claims.iat)).toBe(24 * 3600);
    const dash = await dashboard(server, token);
    expect(dash.status).toBe(200);
    expect(await dash.json()).toEqual({ email: 'alice@example.com', wallet: null, api_keys: [] });

    // Same neutral answer for an address that has an account and one that does not.
    const again = await post(server, '/auth/magic-link', { email: 'nobody-yet@example.com' });
    expect((await again.json()).message).toBe(message);

    // Single use.
    const reused = await fetch(link);
    expect(reused.status).toBe(401);
    expect((await reused.json()).error).toMatch(/invalid, expired or already used/);
  });

  it('finds the same account on the next sign-in, whatever the case of the address', async () => {
    const first = decodeClaims(await signIn(server, smtp, 'bob@example.com')).sub;
    const second = decodeClaims(await signIn(server, smtp, 'bob@example.com')).sub;
    const link = await requestLink('  BOB@Example.COM ');
    const third = decodeClaims((await (await fetch(link)).json()).token).sub;
    expect(second).toBe(first);
    expect(third).toBe(first);
    expect(await server.db.get('SELECT COUNT(*) AS n FROM accounts WHERE email = ?', ['bob@example.com'])).toEqual({
      n: 1,
    });
  });

  it('stores only a hash of the token, with a 15-minute expiry', async () => {
    const link = await requestLink('hash@example.com');
    const token = link.searchParams.get('token')!;
    const rows = await server.db.all<Record<string, unknown>>('SELECT * FROM magic_links WHERE email = ?', [
      'hash@example.com',
    ]);
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(token);
    expect(rows[0]!.expires_at).toBe(server.clock.now() + 15 * MINUTE);
  });

  it('refuses a link after 15 minutes and accepts it just before', async () => {
    const late = await requestLink('late@example.com');
    const onTime = await requestLink('ontime@example.com');
    server.clock.advance(15 * MINUTE - 1000);
    expect((await fetch(onTime)).status).toBe(200);
    server.clock.advance(1000);
    expect((await fetch(late)).status).toBe(401);
  });

  it('lets exactly one of many concurrent verifications of the same link win', async () => {
    const link = await requestLink('race@example.com');
    const results = await Promise.all(Array.from({ length: 20 }, () => fetch(link).then((r) => r.status)));
    expect(results.filter((s) => s === 200)).toHaveLength(1);
    expect(results.filter((s) => s === 401)).toHaveLength(19);
  });

  it.each([
    ['no token', '/auth/verify', 400],
    ['an empty token', '/auth/verify?token=', 400],
    ['an unknown token', '/auth/verify?token=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 401],
    ['a token of the wrong shape', '/auth/verify?token=%27%20OR%201%3D1', 401],
  ])('answers %s with a JSON error of the right status', async (_name, pathAndQuery, status) => {
    const res = await fetch(server.url + pathAndQuery);
    expect(res.status).toBe(status);
    expect((await res.json()).error).toEqual(expect.any(String));
  });

  it.each([
    ['no email', {}],
    ['a malformed email', { email: 'not-an-email' }],
    ['a non-string email', { email: 42 }],
    ['an absolute next URL', { email: 'n@example.com', next: 'https://evil.example/device' }],
    ['a protocol-relative next', { email: 'n@example.com', next: '//evil.example/device' }],
    ['a backslash next', { email: 'n@example.com', next: '/\\evil.example' }],
  ])('refuses %s with 400', async (_name, body) => {
    const res = await post(server, '/auth/magic-link', body);
    expect(res.status).toBe(400);
    expect((await res.json()).code).toBe('validation_error');
  });

  it('gives a browser a page whose button signs in: a session cookie, then a landing page or the page the sign-in started on', async () => {
    // A sign-in asked for on the device page without a code: the button, then a redirect back there.
    const link = await requestLink('browser@example.com', { next: '/device' });
    const opened = await fetch(link, { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    expect(opened.status).toBe(200);
    expect(opened.headers.get('set-cookie')).toBeNull();
    expect(opened.headers.get('content-security-policy')).toMatch(/form-action 'self'/);
    const button = await opened.text();
    expect(button).not.toMatch(/<script/i);
    expect(button).toContain('<form method="post" action="/auth/verify">');
    expect(button.match(/<button/g)).toHaveLength(1);

    const press = (url: URL) =>
      fetch(new URL('/auth/verify', url), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html', origin: url.origin },
        body: new URLSearchParams({ token: url.searchParams.get('token')! }).toString(),
        redirect: 'manual',
      });
    const res = await press(link);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/device');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    const cookie = res.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^axle_session=[\w-]+\.[\w-]+\.[\w-]+;/);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).not.toMatch(/Secure/); // plain http base URL
    // The cookie carries a working session for the same account.
    const jwt = /^axle_session=([^;]+)/.exec(cookie)![1]!;
    expect((await (await dashboard(server, jwt)).json()).email).toBe('browser@example.com');

    const used = await press(link);
    expect(used.status).toBe(401);
    expect(used.headers.get('set-cookie')).toBeNull();
    expect(await used.text()).toMatch(/Sign-in failed/);

    // Without a page to go back to, the landing page says who is signed in.
    const plain = await press(await requestLink('plain@example.com'));
    expect(plain.status).toBe(200);
    expect(plain.headers.get('content-type')).toMatch(/^text\/html/);
    expect(plain.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
    expect(plain.headers.get('content-security-policy')).not.toMatch(/script-src|unsafe-inline/);
    expect(plain.headers.get('referrer-policy')).toBe('no-referrer');
    const html = await plain.text();
    expect(html).not.toMatch(/<script|localStorage/i);
    expect(html).toContain('plain@example.com');
  });

  it('leaves the link working after a mail scanner fetches it with HEAD and a browser-like GET', async () => {
    const link = await requestLink('scanned@example.com');
    for (const method of ['HEAD', 'GET', 'HEAD']) {
      const res = await fetch(link, {
        method,
        headers: { accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.8', 'user-agent': 'LinkScanner/1.0' },
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('set-cookie')).toBeNull();
    }
    // A HEAD asking for JSON does not consume it either.
    expect((await fetch(link, { method: 'HEAD', headers: { accept: 'application/json' } })).status).toBe(200);
    expect(await server.db.get('SELECT used_at FROM magic_links WHERE email = ?', ['scanned@example.com'])).toEqual({
      used_at: null,
    });
    const res = await pressSignIn(link);
    expect(res.status).toBe(200);
    expect(res.headers.get('set-cookie')).toMatch(/^axle_session=/);
  });

  it("refuses the button's POST from another site, and takes a JSON client's POST", async () => {
    const link = await requestLink('crosssite@example.com');
    const token = link.searchParams.get('token')!;
    const forged = await fetch(`${server.url}/auth/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
      body: new URLSearchParams({ token }).toString(),
    });
    expect(forged.status).toBe(403);
    expect(forged.headers.get('set-cookie')).toBeNull();
    const res = await post(server, '/auth/verify', { token });
    expect(res.status).toBe(200);
    expect(decodeClaims((await res.json()).token).sub).toMatch(/^acc_/);
  });
});

describe('session tokens (JWT) under attack', () => {
  let smtp: Smtp;
  let server: TestServer;
  let jwt: string;
  let accountId: string;
  beforeAll(async () => {
    smtp = await startSmtp();
    server = await startTestServer({ AXLE_SMTP_URL: smtp.url });
    jwt = await signIn(server, smtp, 'target@example.com');
    accountId = decodeClaims(jwt).sub as string;
  });
  afterAll(async () => {
    await server.stop();
    await smtp.close();
  });

  const expect401 = async (token: string) => {
    const res = await dashboard(server, token);
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: expect.any(String), code: 'unauthorized' });
  };

  it('accepts the genuine token', async () => {
    expect((await dashboard(server, jwt)).status).toBe(200);
  });

  it('refuses a token signed with another secret', async () => {
    const iat = Math.floor(server.clock.now() / 1000);
    const forged = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(accountId)
      .setIssuedAt(iat)
      .setExpirationTime(iat + 3600)
      .sign(new TextEncoder().encode('not-the-server-secret-not-the-server-secret'));
    await expect401(forged);
    // And the genuine token with its signature swapped for another one.
    await expect401(`${jwt.split('.').slice(0, 2).join('.')}.${forged.split('.')[2]}`);
  });

  it('refuses alg none', async () => {
    const enc = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const iat = Math.floor(server.clock.now() / 1000);
    await expect401(`${enc({ alg: 'none', typ: 'JWT' })}.${enc({ sub: accountId, iat, exp: iat + 3600 })}.`);
  });

  it('refuses garbage and keys in place of a JWT on JWT-only routes', async () => {
    await expect401('not.a.jwt');
    await expect401('eyJhbGciOiJIUzI1NiJ9');
  });

  it('honours the 24-hour lifetime on the injected clock', async () => {
    server.clock.advance(24 * HOUR - 1000);
    expect((await dashboard(server, jwt)).status).toBe(200);
    server.clock.advance(2000);
    await expect401(jwt);
  });

  it('refuses a valid token of a deleted account', async () => {
    const fresh = await signIn(server, smtp, 'leaver@example.com');
    expect((await dashboard(server, fresh)).status).toBe(200);
    await server.db.run('UPDATE accounts SET deleted_at = ? WHERE email = ?', [
      server.clock.now(),
      'leaver@example.com',
    ]);
    await expect401(fresh);
  });

  it('keeps the generated signing secret in the data dir, readable by the owner only', () => {
    const file = path.join(server.dataDir, 'jwt-secret');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(file, 'utf8').length).toBeGreaterThanOrEqual(43);
  });
});

describe('without AXLE_SMTP_URL (embedded default)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.stop());

  it('writes the message to <dataDir>/outbox/ and logs the link', async () => {
    const res = await post(server, '/auth/magic-link', { email: 'dev@example.com' });
    expect(res.status).toBe(200);
    const outbox = path.join(server.dataDir, 'outbox');
    const files = fs.readdirSync(outbox);
    expect(files).toHaveLength(1);
    expect(files[0]).not.toContain('dev@example.com');
    const eml = fs.readFileSync(path.join(outbox, files[0]!), 'utf8');
    expect(eml).toMatch(/^To: dev@example\.com$/m);
    const logged = server.logs.map((l) => JSON.parse(l)).find((l) => l.link);
    expect(logged.link).toMatch(new RegExp(`^${server.url}/auth/verify\\?token=`));
    expect((await fetch(logged.link)).status).toBe(200);
  });
});

describe('configuration that shapes the link', () => {
  it('builds links from AXLE_BASE_URL and marks the cookie Secure when it is https', async () => {
    const smtp = await startSmtp();
    const server = await startTestServer({ AXLE_SMTP_URL: smtp.url, AXLE_BASE_URL: 'https://axle.example.test/' });
    try {
      await post(server, '/auth/magic-link', { email: 'tls@example.com' });
      const link = linkIn(smtp.lastTo('tls@example.com')!);
      expect(link.origin).toBe('https://axle.example.test');
      const res = await pressSignIn(link, link.origin, new URL(`${server.url}${link.pathname}${link.search}`));
      expect(res.status).toBe(200);
      expect(res.headers.get('set-cookie')).toMatch(/; Secure/);
    } finally {
      await server.stop();
      await smtp.close();
    }
  });

  it('answers 503 without leaking details when the mail server is unreachable', async () => {
    const smtp = await startSmtp();
    const deadUrl = smtp.url;
    await smtp.close();
    const server = await startTestServer({ AXLE_SMTP_URL: deadUrl });
    try {
      const res = await post(server, '/auth/magic-link', { email: 'down@example.com' });
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ code: 'mail_unavailable' });
      expect(server.logs.join('\n')).not.toContain('down@example.com');
    } finally {
      await server.stop();
    }
  });
});
