import path from 'node:path';
import { API_KEY_SCOPES, LIMITS } from '@axle/sdk';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../src/clock.js';
import { newId } from '../src/domain/ids.js';
import type { DomainError } from '../src/domain/errors.js';
import { createKey } from '../src/services/api-keys.js';
import { accountWriteBuckets, createAccountWriteLimiter } from '../src/services/account-write-limits.js';
import { createRateLimiter } from '../src/services/rate-limit.js';
import { learningsStore } from '../src/store/learnings.js';
import { openTestStore } from '../../../test/support/backend.js';
import { startTestServer, type TestServer } from '../../../test/support/server.js';
import { bearer, post, type Smtp, signIn, startMailingServer } from '../../../test/support/identity.js';
import { newBuyer, seedLearning, verifyWallet } from './money-helpers.js';

const MINUTE = 60_000;
const statuses = (responses: Response[]) => responses.map((r) => r.status);
const count = (xs: number[], v: number) => xs.filter((x) => x === v).length;

describe('per-account limits on repeatable writes (HTTP)', () => {
  let smtp: Smtp;
  let server: TestServer;
  let stop: () => Promise<void>;
  beforeAll(async () => {
    ({ smtp, server, stop } = await startMailingServer());
  });
  afterAll(() => stop());

  const create = (jwt: string) => post(server, '/account/api-keys', {}, bearer(jwt));
  const liveKeys = async (email: string) =>
    (await server.db.get<{ n: number }>(
      'SELECT COUNT(*) AS n FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE a.email = ? AND k.revoked_at IS NULL',
      [email],
    ))!.n;
  const accountId = async (email: string) =>
    (await server.db.get<{ id: string }>('SELECT id FROM accounts WHERE email = ?', [email]))!.id;

  it('creates keys at most 10 a minute and 30 an hour per account, 429 with Retry-After, refused ones spending nothing', async () => {
    const { perMinute, perHour } = LIMITS.accountWrites.apiKeyCreate;
    const jwt = await signIn(server, smtp, 'minter@example.com');
    const burst = await Promise.all(Array.from({ length: 25 }, () => create(jwt)));
    expect(count(statuses(burst), 200)).toBe(perMinute);
    expect(count(statuses(burst), 429)).toBe(25 - perMinute);
    const refused = burst.find((r) => r.status === 429)!;
    expect(refused.headers.get('retry-after')).toBe('60');
    expect(await refused.json()).toMatchObject({ code: 'rate_limited', retry_after_seconds: 60 });
    expect(await liveKeys('minter@example.com')).toBe(perMinute);

    // Another account is not affected.
    expect((await create(await signIn(server, smtp, 'bystander@example.com'))).status).toBe(200);

    server.clock.advance(MINUTE);
    for (let made = perMinute; made < perHour; made += perMinute) {
      expect(count(statuses(await Promise.all(Array.from({ length: perMinute }, () => create(jwt)))), 200)).toBe(
        perMinute,
      );
      server.clock.advance(MINUTE);
    }
    const hourly = await create(jwt);
    expect(hourly.status).toBe(429);
    expect(Number(hourly.headers.get('retry-after'))).toBe(60 * 60 - 3 * 60);
    server.clock.advance(60 * MINUTE);
    expect((await create(jwt)).status).toBe(200);
  });

  it('holds an account to 50 live keys: 409 api_key_limit with the cap, costing no quota; revoking makes room', async () => {
    const jwt = await signIn(server, smtp, 'hoarder@example.com');
    const owner = await accountId('hoarder@example.com');
    const max = LIMITS.liveApiKeysPerAccount;
    for (let i = 0; i < max - 1; i++) {
      await server.db.run(
        'INSERT INTO api_keys (id, account_id, key_hash, name, scopes, created_at) VALUES (?, ?, ?, ?, ?, ?)',
        [newId('key'), owner, `hash-${owner}-${i}`, `k${i}`, 'search', server.clock.now() + i],
      );
    }
    server.clock.advance(MINUTE);
    expect((await create(jwt)).status).toBe(200);
    const over = await create(jwt);
    expect(over.status).toBe(409);
    expect(await over.json()).toMatchObject({
      code: 'api_key_limit',
      max_live_keys: max,
      error: expect.stringContaining(`${max}`),
    });
    expect(await liveKeys('hoarder@example.com')).toBe(max);
    // Only the successful creation was counted.
    expect(
      await server.db.get('SELECT count FROM rate_limits WHERE bucket = ?', [
        `account-write:apiKeyCreate:minute:${owner}`,
      ]),
    ).toEqual({ count: 1 });

    const { api_keys } = await (await fetch(`${server.url}/account/api-keys?limit=1`, { headers: bearer(jwt) })).json();
    const revoked = await fetch(`${server.url}/account/api-keys/${api_keys[0].id}`, {
      method: 'DELETE',
      headers: bearer(jwt),
    });
    expect(revoked.status).toBe(200);
    expect((await create(jwt)).status).toBe(200);
  });

  it('pages GET /account/api-keys, oldest first, with a cursor', async () => {
    const jwt = await signIn(server, smtp, 'hoarder@example.com');
    const seen: string[] = [];
    let cursor: string | null = null;
    const sizes: number[] = [];
    do {
      const res = await fetch(`${server.url}/account/api-keys?limit=20${cursor ? `&cursor=${cursor}` : ''}`, {
        headers: bearer(jwt),
      });
      expect(res.status).toBe(200);
      const page: { api_keys: Array<{ id: string; created_at: number }>; next_cursor: string | null } =
        await res.json();
      sizes.push(page.api_keys.length);
      seen.push(...page.api_keys.map((k) => k.id));
      cursor = page.next_cursor;
    } while (cursor);
    expect(sizes).toEqual([20, 20, 10]);
    expect(new Set(seen).size).toBe(50);
    const stored = await server.db.all<{ id: string }>(
      "SELECT k.id FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE a.email = 'hoarder@example.com' AND k.revoked_at IS NULL ORDER BY k.created_at, k.id",
    );
    expect(seen).toEqual(stored.map((r) => r.id));
    // The default page holds every key an account may have.
    expect(
      (await (await fetch(`${server.url}/account/api-keys`, { headers: bearer(jwt) })).json()).api_keys,
    ).toHaveLength(50);

    for (const [query, field] of [
      ['limit=0', 'query.limit'],
      ['limit=101', 'query.limit'],
      ['cursor=bm90LWEtY3Vyc29y', 'query.cursor'],
    ]) {
      const res = await fetch(`${server.url}/account/api-keys?${query}`, { headers: bearer(jwt) });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ code: 'validation_error', field });
    }
  });

  it('limits consent changes per account; a refused change records nothing', async () => {
    const { perMinute } = LIMITS.accountWrites.consentChange;
    const jwt = await signIn(server, smtp, 'flipper@example.com');
    const owner = await accountId('flipper@example.com');
    const results = [];
    for (let i = 0; i < perMinute + 2; i++)
      results.push(
        (await post(server, '/extract/consent', { action: i % 2 ? 'revoke' : 'grant' }, bearer(jwt))).status,
      );
    expect(results).toEqual([...Array(perMinute).fill(200), 429, 429]);
    const patch = await fetch(`${server.url}/account/settings`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', ...bearer(jwt) },
      body: JSON.stringify({ autonomous_extraction_mode: 'automatic' }),
    });
    expect(patch.status).toBe(429);
    expect(Number(patch.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await server.db.get('SELECT COUNT(*) AS n FROM consent_records WHERE account_id = ?', [owner])).toEqual({
      n: perMinute,
    });
    server.clock.advance(MINUTE);
    expect((await post(server, '/extract/consent', { action: 'grant' }, bearer(jwt))).status).toBe(200);
  });
});

describe('POST /account/link-wallet per account', () => {
  let server: TestServer;
  beforeAll(async () => {
    // A list that cannot be read: every screening is the outside call failing (503).
    server = await startTestServer({ AXLE_SANCTIONS_LIST: path.join('/nonexistent', 'sanctions.txt') });
  });
  afterAll(() => server.stop());

  it('is limited before the sanctions screen: past the limit 429 and no screening; a refused link spends nothing', async () => {
    const { perMinute, perHour } = LIMITS.accountWrites.walletLink;
    const owner = await newBuyer(server, { terms: true });
    const link = (wallet: string) => post(server, '/account/link-wallet', { wallet }, { 'x-api-key': owner.key });
    // An unverified wallet is refused before the limit and the screen.
    const unverified = privateKeyToAccount(generatePrivateKey()).address;
    for (let i = 0; i < perMinute + 1; i++) expect((await link(unverified)).status).toBe(400);
    const wallet = privateKeyToAccount(generatePrivateKey());
    await verifyWallet(server, wallet, { 'x-api-key': owner.key });
    const statuses = [];
    for (let i = 0; i < perMinute + 2; i++) statuses.push((await link(wallet.address)).status);
    expect(statuses).toEqual([...Array(perMinute).fill(503), 429, 429]);
    const refused = await link(wallet.address);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await refused.json()).toMatchObject({ code: 'rate_limited' });
    server.clock.advance(MINUTE);
    expect((await link(wallet.address)).status).toBe(503);
    expect(perHour).toBeGreaterThanOrEqual(perMinute);
  });
});

describe('keyed searches per account (POST /knowledge writes impressions and what surfaced)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.stop());

  it('answers a key 120 searches a minute and 2,000 an hour; past them 429, the refused ones writing nothing', async () => {
    const { perMinute, perHour } = LIMITS.accountWrites.keyedSearch;
    expect([perMinute, perHour]).toEqual([120, 2000]);
    // A key is never held to less than anonymous search from one address.
    expect(perMinute).toBeGreaterThanOrEqual(LIMITS.perAddress.anonymousKnowledgeSearch.perMinute);
    // Searchable like a published learning: a seq (the full-text row id).
    const l = await seedLearning(server, { seq: await learningsStore.nextSeq(server.db) });
    const [agent, bystander] = [await newBuyer(server), await newBuyer(server)];
    const search = (headers: Record<string, string> = {}) =>
      post(server, '/knowledge', { query: 'S3 multipart SlowDown', limit: 1 }, headers);
    const impressions = async () =>
      Number(
        (await server.db.get<{ n: number }>('SELECT SUM(impressions) AS n FROM learning_demand WHERE learning_id = ?', [
          l.id,
        ]))!.n,
      );
    const statuses: number[] = [];
    for (let i = 0; i < perMinute + 3; i++) statuses.push((await search({ 'x-api-key': agent.key })).status);
    expect(statuses).toEqual([...Array(perMinute).fill(200), 429, 429, 429]);
    const refused = await search({ 'x-api-key': agent.key });
    expect(refused.headers.get('retry-after')).toBe('60');
    expect(await refused.json()).toMatchObject({ code: 'rate_limited', retry_after_seconds: 60 });
    expect(await impressions()).toBe(perMinute);
    // Another account, and search without a key, are not affected.
    expect((await search({ 'x-api-key': bystander.key })).status).toBe(200);
    expect((await search()).status).toBe(200);
    server.clock.advance(MINUTE);
    expect((await search({ 'x-api-key': agent.key })).status).toBe(200);
    expect(accountWriteBuckets('keyedSearch', agent.accountId).map((b) => b.limit)).toEqual([perMinute, perHour]);
  });
});

describe('the write-limit helper the marketplace uses (POST /learn, ratings, retractions)', () => {
  it('takes one extraction run of 20 drafts at once and about 100 an hour', async () => {
    expect(LIMITS.accountWrites.learn.perMinute).toBeGreaterThanOrEqual(LIMITS.extraction.maxLearnings);
    const store = await openTestStore();
    const { db } = store;
    try {
      const clock = new ManualClock();
      const limits = createAccountWriteLimiter(createRateLimiter({ db, clock }));
      const take = () =>
        db
          .tx((q) => limits.take('learn', 'acc_1', q))
          .then(
            () => 'ok',
            (err: DomainError) => err.code,
          );
      const taken: string[] = [];
      for (let minute = 0; minute < 6; minute++) {
        for (let i = 0; i < 21; i++) taken.push(await take());
        clock.advance(MINUTE);
      }
      // 20 a minute for five minutes is the hour's 100; the sixth minute gets none.
      expect(
        count(
          taken.map((t) => (t === 'ok' ? 1 : 0)),
          1,
        ),
      ).toBe(LIMITS.accountWrites.learn.perHour);
      expect(taken.slice(0, 21)).toEqual([...Array(20).fill('ok'), 'rate_limited']);
      expect(taken.slice(105)).toEqual(Array(21).fill('rate_limited'));
      // Another account and another kind of write have their own counters.
      expect(await db.tx((q) => limits.take('learn', 'acc_2', q))).toBeUndefined();
      expect(await db.tx((q) => limits.take('rating', 'acc_1', q))).toBeUndefined();
      expect(accountWriteBuckets('retraction', 'acc_1').map((b) => b.limit)).toEqual([
        LIMITS.accountWrites.retraction.perMinute,
        LIMITS.accountWrites.retraction.perHour,
      ]);
    } finally {
      await store.close();
    }
  });

  it('says when a write would be refused, without counting one', async () => {
    const store = await openTestStore();
    const { db } = store;
    try {
      const clock = new ManualClock();
      const limits = createAccountWriteLimiter(createRateLimiter({ db, clock }));
      for (let i = 0; i < LIMITS.accountWrites.learn.perMinute; i++) {
        expect(await limits.exhausted('learn', 'acc_1')).toBe(false);
        await db.tx((q) => limits.take('learn', 'acc_1', q));
      }
      expect(await limits.exhausted('learn', 'acc_1')).toBe(true);
      expect(await limits.exhausted('learn', 'acc_2')).toBe(false);
      clock.advance(MINUTE);
      expect(await limits.exhausted('learn', 'acc_1')).toBe(false);
      // Asking spent nothing: the next minute still takes its full burst.
      for (let i = 0; i < LIMITS.accountWrites.learn.perMinute; i++)
        await db.tx((q) => limits.take('learn', 'acc_1', q));
      expect(await limits.exhausted('learn', 'acc_1')).toBe(true);
    } finally {
      await store.close();
    }
  });
});

describe('rate-limit windows opened by a clock far ahead', () => {
  // Found by serving from two instances whose clocks disagreed by a year (one set wrong, then corrected): the
  // window the fast one opened for an address lasted, for every instance, until its start a year ahead plus a
  // minute, so that address was refused (Retry-After a year) once the limit was reached on the honest ones.
  it("a window that starts more than a window ahead of this instance's clock is not counted in: a new one opens", async () => {
    const server = await startTestServer({ AXLE_ANONYMOUS_DISCOVER_PER_MINUTE: '3' });
    try {
      const discover = () => post(server, '/discover', { query: 'weather forecast' });
      const year = 365 * 24 * 60 * MINUTE;
      server.clock.advance(year);
      expect((await discover()).status).toBe(200);
      server.clock.advance(-year);
      const answers = [];
      for (let i = 0; i < 4; i++) answers.push(await discover());
      expect(statuses(answers)).toEqual([200, 200, 200, 429]);
      expect(Number(answers[3]!.headers.get('retry-after'))).toBeLessThanOrEqual(60);
      // The window opened now lasts its minute.
      server.clock.advance(MINUTE);
      expect((await discover()).status).toBe(200);
    } finally {
      await server.stop();
    }
  });
});

describe('POST /discover with an API key', () => {
  // Found by reading the limits table: anonymous searches were limited per address and keyed ones not at all, so
  // one free account's key searched without bound, from any number of addresses.
  it('is limited per account across its keys and addresses, directly and through MCP; other accounts search on', async () => {
    const server = await startTestServer({
      AXLE_KEYED_DISCOVER_PER_MINUTE: '3',
      AXLE_ANONYMOUS_DISCOVER_PER_MINUTE: '100',
      AXLE_TRUST_PROXY: 'true',
    });
    try {
      const discover = (ip: string, key?: string) =>
        fetch(`${server.url}/discover`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-forwarded-for': ip, ...(key && { 'x-api-key': key }) },
          body: JSON.stringify({ query: 'weather forecast' }),
        });
      const { accountId, key } = await newBuyer(server);
      const second = await server.db.tx((q) => createKey(q, accountId, { scopes: API_KEY_SCOPES }, server.clock.now()));
      const answers = [
        await discover('198.51.100.10', key),
        await discover('198.51.100.11', second.api_key),
        await discover('198.51.100.12', key),
        await discover('198.51.100.13', second.api_key),
      ];
      expect(statuses(answers)).toEqual([200, 200, 200, 429]);
      expect(Number(answers[3]!.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await answers[3]!.json()).toMatchObject({ code: 'rate_limited' });
      // The MCP tool's search for this keyed caller counts against the same account.
      const viaMcp = await fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'x-forwarded-for': '198.51.100.14',
          'x-api-key': key,
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'svc_discover', arguments: { query: 'weather' } },
        }),
      });
      const result = ((await viaMcp.json()) as { result: { isError?: boolean; content: Array<{ text: string }> } })
        .result;
      expect(result.isError).toBe(true);
      expect(JSON.parse(result.content[0]!.text).status).toBe(429);
      // Another account, and an anonymous caller at the same address, are not held back.
      const other = await newBuyer(server);
      expect((await discover('198.51.100.10', other.key)).status).toBe(200);
      expect((await discover('198.51.100.10')).status).toBe(200);
      // The account's next minute serves it again.
      server.clock.advance(MINUTE);
      expect((await discover('198.51.100.10', key)).status).toBe(200);
    } finally {
      await server.stop();
    }
  });
});
