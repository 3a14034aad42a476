import { API_KEY_SCOPES, type ApiKeyScope, ROUTE_SCOPES } from '@axle/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { duplicateJsonKey } from '../src/http/body.js';
import { createKey } from '../src/services/api-keys.js';
import { checkLedger } from '../src/services/ledger-check.js';
import { creditsStore } from '../src/store/credits.js';
import { ledgerStore } from '../src/store/ledger.js';
import { startTestServer, type TestServer } from '../../../test/support/server.js';
import { bearer } from '../../../test/support/identity.js';
import { earner, getUnlock, jwtFor, newBuyer, seedLearning } from './money-helpers.js';
import { type ProcessorStandIn, startProcessorStandIn } from './processor-standin.js';

const SECRET = 'sk_test_axle';

let server: TestServer;
let standIn: ProcessorStandIn;
beforeAll(async () => {
  standIn = await startProcessorStandIn(SECRET);
  server = await startTestServer({
    AXLE_CUSTODIAL_WITHDRAWALS: 'true',
    AXLE_PROCESSOR_SECRET_KEY: SECRET,
    AXLE_PROCESSOR_API_URL: standIn.url,
    AXLE_ADMIN_TOKEN: 'a'.repeat(32),
    AXLE_ADMIN_READ_TOKEN: 'r'.repeat(32),
  });
});
afterAll(async () => {
  await server.stop();
  await standIn.close();
});

/** A key of `accountId` holding only `scopes`. */
const keyWith = (accountId: string, scopes: readonly ApiKeyScope[]) =>
  server.db.tx(async (q) => (await createKey(q, accountId, { scopes }, server.clock.now())).api_key);

const call = async (method: string, path: string, headers: Record<string, string>, body?: string) => {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    ...(body !== undefined && { body }),
  });
  const text = await res.text();
  let code: unknown;
  try {
    code = (JSON.parse(text) as { code?: unknown }).code;
  } catch {
    code = undefined;
  }
  return { status: res.status, code };
};

describe('the scope matrix (ROUTE_SCOPES): every route against every scope', () => {
  it('lists exactly the routes the server mounts', () => {
    const mounted = server.built.api.mounted.map((r) => `${r.method.toUpperCase()} ${r.path}`).sort();
    expect(Object.keys(ROUTE_SCOPES).sort()).toEqual(mounted);
  });

  it('a key is let through exactly where its scope is listed; elsewhere it gains nothing', async () => {
    const { accountId } = await newBuyer(server, { terms: true });
    const keys = Object.fromEntries(
      await Promise.all(API_KEY_SCOPES.map(async (s) => [s, await keyWith(accountId, [s])] as const)),
    ) as Record<ApiKeyScope, string>;
    const mismatches: string[] = [];
    for (const [route, allowed] of Object.entries(ROUTE_SCOPES)) {
      const [method, template] = route.split(' ') as [string, string];
      const path = template.replace('{wallet}', '0x000000000000000000000000000000000000dEaD').replace('{id}', 'x_nope');
      const body = method === 'GET' ? undefined : '{}';
      const anonymous = await call(method, path, {}, body);
      for (const scope of API_KEY_SCOPES) {
        const r = await call(method, path, { 'x-api-key': keys[scope] }, body);
        const refused = r.status === 403 && r.code === 'insufficient_scope';
        const ok =
          allowed === 'public' || allowed.length === 0
            ? // The key is not a credential here: the answer is the anonymous one.
              r.status === anonymous.status && !refused
            : (allowed as readonly string[]).includes(scope)
              ? !refused && r.status !== 401
              : refused;
        if (!ok)
          mismatches.push(
            `${route} with a ${scope} key: ${r.status} ${String(r.code)} (anonymous ${anonymous.status})`,
          );
      }
    }
    expect(mismatches).toEqual([]);
  });

  it('fault 5: keys with only account or contribute spend no credit; only search unlocks by credit', async () => {
    const { accountId, key: all } = await newBuyer(server, { credits: 3, terms: true });
    const l = await seedLearning(server);
    for (const scopes of [['account'], ['contribute'], ['payout'], ['account', 'contribute']] as ApiKeyScope[][]) {
      const res = await getUnlock(server, l.id, { 'x-api-key': await keyWith(accountId, scopes) });
      expect(res.status, scopes.join(' ')).toBe(403);
      expect(await res.json()).toMatchObject({ code: 'insufficient_scope', required_scope: 'search' });
    }
    expect((await creditsStore.balance(server.db, accountId)).unlocks).toBe(3);
    expect((await getUnlock(server, l.id, { 'x-api-key': await keyWith(accountId, ['search']) })).status).toBe(200);
    expect((await creditsStore.balance(server.db, accountId)).unlocks).toBe(2);
    expect(all).toMatch(/^axl_/);
  });

  it('fault 5: the account scope reads, it does not move money; payout does, and no default key has it', async () => {
    const e = await earner(server, 2_000_000);
    const account = await keyWith(e.accountId, ['account']);
    const byDefault = await server.db.tx(
      async (q) => (await createKey(q, e.accountId, {}, server.clock.now())).api_key,
    );
    for (const key of [account, byDefault]) {
      const h = { 'x-api-key': key };
      for (const [path, body] of [
        ['/withdraw/processor', '{"amount_usd":1}'],
        ['/account/payout-account', '{}'],
        ['/account/link-wallet', '{"wallet":"0x000000000000000000000000000000000000dEaD"}'],
      ] as const)
        expect(await call('POST', path, h, body), path).toEqual({ status: 403, code: 'insufficient_scope' });
      expect((await call('GET', '/account/earnings', h)).status).toBe(200);
    }
    const payout = { 'x-api-key': await keyWith(e.accountId, ['payout']) };
    expect((await call('POST', '/account/payout-account', payout, '{}')).status).toBe(200);
    // A session token carries every scope.
    const jwt = bearer(await jwtFor(server, e.accountId));
    expect((await call('POST', '/withdraw/processor', jwt, '{"amount_usd":1}')).status).toBe(400);
  });
});

describe('fault 6: JSON bodies with duplicate keys are refused', () => {
  it('finds duplicates at any depth, through escapes, and nowhere else', () => {
    expect(duplicateJsonKey('{"amount_usd":1,"amount_usd":2}')).toBe('amount_usd');
    expect(duplicateJsonKey('{"a":{"b":1,"c":{"d":[{"e":1,"e":2}]}}}')).toBe('e');
    expect(duplicateJsonKey('{"amount_usd":1,"amount\\u005fusd":2}')).toBe('amount_usd');
    expect(duplicateJsonKey('{"a":{},"a":1}')).toBe('a');
    expect(duplicateJsonKey('[{"a":1},{"a":2}]')).toBeUndefined();
    expect(duplicateJsonKey('{"a":{"a":{"a":1}},"b":["a","a"],"c":"\\"a\\":1,\\"a\\":2"}')).toBeUndefined();
    expect(duplicateJsonKey('{"x":"}","y":"{","x\\"":1}')).toBeUndefined();
    expect(duplicateJsonKey('"plain"')).toBeUndefined();
  });

  it('{"amount_usd":1,"amount_usd":2} pays nothing: 400 on every money route, nested duplicates too', async () => {
    const e = await earner(server, 5_000_000);
    const h = { 'x-api-key': e.key };
    const link = (await (
      await fetch(`${server.url}/account/payout-account`, { method: 'POST', headers: h })
    ).json()) as {
      payout_account_id: string;
    };
    standIn.completeOnboarding(link.payout_account_id);
    const before = standIn.transfers.length;
    const bodies: Array<[string, string]> = [
      ['/withdraw/processor', '{"amount_usd":1,"amount_usd":2}'],
      ['/withdraw/processor', '{"amount_usd":2,"amount\\u005fusd":1}'],
      ['/withdraw/processor', '{"amount_usd":1,"x":{"y":1,"y":2}}'],
      [
        '/withdraw',
        '{"wallet":"0x000000000000000000000000000000000000dEaD","wallet":"0x1","signature":"0x","timestamp":1}',
      ],
      ['/account/link-wallet', '{"wallet":"0x000000000000000000000000000000000000dEaD","wallet":"0x1"}'],
      ['/checkout/session', '{"pack":"starter","pack":"pro"}'],
      ['/webhook/processor', '{"id":"evt_1","id":"evt_2","type":"checkout.session.completed","data":{}}'],
      ['/account/payout-account', '{"a":1,"a":1}'],
    ];
    for (const [path, body] of bodies) {
      const auth = path === '/checkout/session' ? bearer(await jwtFor(server, e.accountId)) : h;
      const r = await call('POST', path, auth, body);
      expect([path, r.status, r.code]).toEqual([path, 400, 'duplicate_json_key']);
    }
    expect(standIn.transfers.length).toBe(before);
    expect((await ledgerStore.balance(server.db, e.accountId)).pending_micro).toBe(3_500_000);
    // The same request without the duplicate pays once.
    expect((await call('POST', '/withdraw/processor', h, '{"amount_usd":1}')).status).toBe(200);
    expect(standIn.transfers.length).toBe(before + 1);
    expect(await checkLedger(server.db)).toEqual([]);
  });
});
