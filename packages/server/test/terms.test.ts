import { CURRENT_TOS_VERSION } from '@axle/sdk';
import Koa from 'koa';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../src/clock.js';
import { errorMiddleware } from '../src/http/error-middleware.js';
import { requireTermsAccepted } from '../src/http/terms-gate.js';
import { findOrCreateAccount } from '../src/services/accounts.js';
import { verifyAuditChain } from '../src/services/audit.js';
import { createTermsService, type TermsService } from '../src/services/terms.js';
import type { Transactor } from '../src/store/queryable.js';
import { openTestStore } from '../../../test/support/backend.js';
import { termsStore } from '../src/store/terms.js';
import { startTestServer, type TestServer } from '../../../test/support/server.js';
import { bearer, post, type Smtp, signIn, startSmtp } from '../../../test/support/identity.js';

describe('terms over HTTP', () => {
  let smtp: Smtp;
  let server: TestServer;
  let jwt: string;
  beforeAll(async () => {
    smtp = await startSmtp();
    server = await startTestServer({ AXLE_SMTP_URL: smtp.url });
    jwt = await signIn(server, smtp, 'terms@example.com');
  });
  afterAll(async () => {
    await server.stop();
    await smtp.close();
  });

  const status = (headers: Record<string, string>) => fetch(`${server.url}/account/terms-status`, { headers });
  const accept = (body: unknown, headers: Record<string, string> = bearer(jwt)) =>
    post(server, '/account/accept-terms', body, headers);

  it('serves the terms page at terms_url with a strict CSP', async () => {
    const res = await status(bearer(jwt));
    const { terms_url } = await res.json();
    expect(terms_url).toBe(`${server.url}/terms`);
    const page = await fetch(terms_url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(await page.text()).toContain(`Version ${CURRENT_TOS_VERSION}`);
  });

  it('needs credentials', async () => {
    expect((await status({})).status).toBe(401);
    expect((await accept({ version: CURRENT_TOS_VERSION, agree: true }, {})).status).toBe(401);
  });

  it('refuses a missing version, a missing affirmation and a non-current version', async () => {
    const noVersion = await accept({ agree: true });
    expect(noVersion.status).toBe(400);
    expect((await noVersion.json()).error).toMatch(/version/);

    for (const body of [{ version: CURRENT_TOS_VERSION }, { version: CURRENT_TOS_VERSION, agree: false }]) {
      const res = await accept(body);
      expect(res.status).toBe(400);
      expect((await res.json()).code).toBe('AFFIRMATION_REQUIRED');
    }
    const old = await accept({ version: '2025-01-01', agree: true });
    expect(old.status).toBe(409);
    expect((await old.json()).current_tos_version).toBe(CURRENT_TOS_VERSION);
    // A version no terms could have is refused by its length, not echoed back in a 409.
    const huge = await accept({ version: 'v'.repeat(100_000), agree: true });
    expect(huge.status).toBe(400);
    expect(JSON.stringify(await huge.json()).length).toBeLessThan(1_000);

    // Nothing was recorded by the refusals.
    expect(await (await status(bearer(jwt))).json()).toMatchObject({ accepted_version: null, accepted_at: null });
  });

  it('records an acceptance with its time from the clock, audit-logged, and repeats idempotently', async () => {
    expect(await (await status(bearer(jwt))).json()).toEqual({
      current_tos_version: CURRENT_TOS_VERSION,
      accepted_version: null,
      accepted_at: null,
      terms_url: `${server.url}/terms`,
    });
    const t = server.clock.now();
    const res = await accept({ version: CURRENT_TOS_VERSION, agree: true });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toEqual({
      message: 'Terms accepted',
      version: CURRENT_TOS_VERSION,
      accepted_at: t,
      audit_ref: expect.stringMatching(/^aud_/),
    });

    const entry = await server.db.get<{ action: string; data: string }>(
      'SELECT action, data FROM audit_log WHERE id = ?',
      [body.audit_ref],
    );
    expect(entry!.action).toBe('terms.accepted');
    expect(JSON.parse(entry!.data)).toEqual({ version: CURRENT_TOS_VERSION, via: 'jwt', first_acceptance: true });

    server.clock.advance(60_000);
    const again = await accept({ version: CURRENT_TOS_VERSION, agree: true });
    expect(await again.json()).toEqual({ ...body, message: 'Terms already accepted' });
    expect(await (await status(bearer(jwt))).json()).toMatchObject({
      accepted_version: CURRENT_TOS_VERSION,
      accepted_at: t,
    });
    expect((await verifyAuditChain(server.db)).ok).toBe(true);
  });

  it('accepts an API key with the contribute scope and refuses one without it', async () => {
    const other = await signIn(server, smtp, 'keyholder@example.com');
    const mint = async (scopes: string[]) =>
      (await (await post(server, '/account/api-keys', { name: 'k', scopes }, bearer(other))).json()).api_key as string;
    const searchOnly = await mint(['search']);
    const refused = await accept({ version: CURRENT_TOS_VERSION, agree: true }, { 'x-api-key': searchOnly });
    expect(refused.status).toBe(403);
    expect((await refused.json()).code).toBe('insufficient_scope');

    const contributor = await mint(['contribute', 'account']);
    const ok = await accept({ version: CURRENT_TOS_VERSION, agree: true }, { 'x-api-key': contributor });
    expect(ok.status).toBe(200);
    const st = await status({ 'x-api-key': contributor });
    expect(st.status).toBe(200);
    expect((await st.json()).accepted_version).toBe(CURRENT_TOS_VERSION);
  });
});

describe('first-acceptance hook', () => {
  let store: Awaited<ReturnType<typeof openTestStore>>;
  let db: Transactor;
  let terms: TermsService;
  const clock = new ManualClock();
  let accountId: string;
  beforeEach(async () => {
    store = await openTestStore();
    db = store.db;
    terms = createTermsService({ db, clock, baseUrl: () => 'http://axle.test' });
    accountId = (await db.tx((q) => findOrCreateAccount(q, 'hook@example.com', clock.now()))).id;
  });
  afterEach(() => store.close());
  const acceptCurrent = () => terms.accept(accountId, { version: CURRENT_TOS_VERSION, agree: true, via: 'jwt' });

  it('runs a registered hook exactly once, inside the acceptance transaction', async () => {
    const calls: Array<{ account: string; seenInTx: boolean; seenOutside: boolean }> = [];
    terms.onFirstTermsAcceptance.push(async (q, account) => {
      calls.push({
        account,
        // The hook's q sees the uncommitted acceptance; the separate reader connection does not yet.
        seenInTx: (await termsStore.find(q, account, CURRENT_TOS_VERSION)) !== undefined,
        seenOutside: (await termsStore.find(db, account, CURRENT_TOS_VERSION)) !== undefined,
      });
    });
    await acceptCurrent();
    await acceptCurrent();
    expect(calls).toEqual([{ account: accountId, seenInTx: true, seenOutside: false }]);
  });

  it('rolls the acceptance (and its audit entry) back when a hook throws', async () => {
    terms.onFirstTermsAcceptance.push(async (q) => {
      await q.run("INSERT INTO meta (key, value) VALUES ('hook-ran', '1')");
      throw new Error('ledger unavailable');
    });
    await expect(acceptCurrent()).rejects.toThrow('ledger unavailable');
    expect(await terms.status(accountId)).toMatchObject({ accepted_version: null });
    expect(await db.get("SELECT 1 FROM meta WHERE key = 'hook-ran'")).toBeUndefined();
    expect(await verifyAuditChain(db)).toEqual({ ok: true, checked: 0 });

    // Once the hook recovers, the next attempt is still the first acceptance.
    terms.onFirstTermsAcceptance.length = 0;
    let ran = 0;
    terms.onFirstTermsAcceptance.push(async () => void ran++);
    await acceptCurrent();
    expect(ran).toBe(1);
  });

  it('is called with no hooks registered too (the acceptance still commits)', async () => {
    const res = await acceptCurrent();
    expect(res.accepted_at).toBe(clock.now());
    expect(await terms.status(accountId)).toMatchObject({ accepted_version: CURRENT_TOS_VERSION });
  });

  it('gates a route with requireTermsAccepted until the current terms are accepted', async () => {
    const app = new Koa();
    app.use(errorMiddleware());
    app.use(async (ctx, next) => {
      const who = ctx.get('x-test-account');
      if (who) ctx.state.identity = { accountId: who, via: 'jwt', scopes: [] };
      return next();
    });
    app.use(requireTermsAccepted(terms));
    app.use((ctx) => {
      ctx.body = { ok: true };
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/withdraw`;
    try {
      expect((await fetch(url)).status).toBe(401);
      const refused = await fetch(url, { headers: { 'x-test-account': accountId } });
      expect(refused.status).toBe(403);
      expect(await refused.json()).toMatchObject({
        error: expect.any(String),
        code: 'TERMS_NOT_ACCEPTED',
        current_tos_version: CURRENT_TOS_VERSION,
        how_to_accept: expect.stringContaining('/account/accept-terms'),
        terms_url: 'http://axle.test/terms',
      });
      await acceptCurrent();
      const ok = await fetch(url, { headers: { 'x-test-account': accountId } });
      expect(ok.status).toBe(200);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
