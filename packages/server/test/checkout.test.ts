import { PurchaseList } from '@axle/sdk';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { creditsStore } from '../src/store/credits.js';
import { startTestServer, type TestServer } from '../../../test/support/server.js';
import { bearer, post } from '../../../test/support/identity.js';
import { jwtFor, newBuyer } from './money-helpers.js';
import { startProcessorStandIn } from './processor-standin.js';

const SECRET = 'sk_test_axle';
const WEBHOOK_SECRET = 'whsec_test_axle';
const stripe = new Stripe(SECRET);

function signedEvent(event: object) {
  const payload = JSON.stringify(event);
  return { payload, header: stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET }) };
}

const completed = (sessionId: string, accountId: string, packId = 'starter', amount = 1000) => ({
  id: `evt_${sessionId}`,
  object: 'event',
  type: 'checkout.session.completed',
  data: {
    object: {
      id: sessionId,
      object: 'checkout.session',
      client_reference_id: accountId,
      metadata: { account_id: accountId, pack_id: packId },
      amount_total: amount,
      payment_status: 'paid',
    },
  },
});

const webhook = (server: TestServer, e: { payload: string; header: string }) =>
  fetch(`${server.url}/webhook/processor`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'stripe-signature': e.header },
    body: e.payload,
  });

describe('card checkout', () => {
  let server: TestServer;
  let standIn: Awaited<ReturnType<typeof startProcessorStandIn>>;
  beforeAll(async () => {
    standIn = await startProcessorStandIn(SECRET);
    server = await startTestServer({
      AXLE_PROCESSOR_SECRET_KEY: SECRET,
      AXLE_PROCESSOR_WEBHOOK_SECRET: WEBHOOK_SECRET,
      AXLE_PROCESSOR_API_URL: standIn.url,
    });
  });
  afterAll(async () => {
    await server.stop();
    await standIn.close();
  });

  it('POST /checkout/session opens a hosted checkout through the processor SDK', async () => {
    const { accountId } = await newBuyer(server);
    const res = await post(server, '/checkout/session', { pack: 'growth' }, bearer(await jwtFor(server, accountId)));
    expect(res.status).toBe(200);
    const body = (await res.json()) as { url: string; session_id: string };
    expect(body.session_id).toMatch(/^cs_test_/);
    expect(body.url).toBe(`${standIn.url}/pay/${body.session_id}`);
    const sent = standIn.requests.find((r) => r.path === '/v1/checkout/sessions')!.form;
    expect(sent.get('mode')).toBe('payment');
    expect(sent.get('line_items[0][price_data][unit_amount]')).toBe('2500');
    expect(sent.get('metadata[account_id]')).toBe(accountId);
    expect(sent.get('metadata[pack_id]')).toBe('growth');
  });

  it('a bad pack is 400 with valid_packs; no session token is 401', async () => {
    const { accountId } = await newBuyer(server);
    const res = await post(server, '/checkout/session', { pack: 'mega' }, bearer(await jwtFor(server, accountId)));
    expect(res.status).toBe(400);
    const body = (await res.json()) as {
      valid_packs: Array<{ id: string; price_usd: number; unlocks: number; queries: number }>;
    };
    expect(body.valid_packs.map((p) => [p.id, p.price_usd])).toEqual([
      ['starter', 10],
      ['growth', 25],
      ['pro', 100],
    ]);
    expect((await post(server, '/checkout/session', { pack: 'starter' })).status).toBe(401);
  });

  it('a signed checkout.session.completed creates one purchase and its credits; replays do not', async () => {
    const { accountId } = await newBuyer(server);
    const e = signedEvent(completed('cs_test_once', accountId));
    const results = await Promise.all(
      Array.from({ length: 10 }, () => webhook(server, e).then((r) => r.json() as Promise<Record<string, unknown>>)),
    );
    const processed = results.filter((r) => r.processed === true);
    expect(processed).toHaveLength(1);
    expect(results.filter((r) => r.already_processed === true)).toHaveLength(9);
    expect(new Set(results.map((r) => r.purchase_id)).size).toBe(1);
    expect(await creditsStore.balance(server.db, accountId)).toEqual({ unlocks: 100, queries: 1000 });
    const list = PurchaseList.parse(
      await (
        await fetch(`${server.url}/account/purchases`, { headers: bearer(await jwtFor(server, accountId)) })
      ).json(),
    );
    expect(list.total_spent_usd).toBe(10);
    expect(list.purchases).toEqual([
      expect.objectContaining({
        id: processed[0]!.purchase_id,
        pack_id: 'starter',
        amount_usd: 10,
        unlocks_added: 100,
        queries_added: 1000,
      }),
    ]);
  });

  it('refuses a bad signature and a malformed event with 400, and acknowledges other event types', async () => {
    const { accountId } = await newBuyer(server);
    const e = signedEvent(completed('cs_test_forged', accountId));
    const forged = await webhook(server, { payload: e.payload.replace('starter', 'pro'), header: e.header });
    expect(forged.status).toBe(400);
    expect(await forged.json()).toMatchObject({ error: 'invalid signature' });
    const noPack = signedEvent({
      ...completed('cs_test_nopack', accountId),
      data: { object: { id: 'cs_test_nopack', metadata: {}, payment_status: 'paid' } },
    });
    expect((await webhook(server, noPack)).status).toBe(400);
    const other = await webhook(
      server,
      signedEvent({ id: 'evt_x', object: 'event', type: 'charge.refunded', data: { object: {} } }),
    );
    expect(await other.json()).toEqual({
      received: true,
      processed: false,
      already_processed: false,
      purchase_id: null,
    });
    expect(await creditsStore.balance(server.db, accountId)).toEqual({ unlocks: 0, queries: 0 });
  });
});

describe('card checkout without a processor', () => {
  it('answers 503 checkout provider not configured', async () => {
    const server = await startTestServer();
    try {
      const { accountId } = await newBuyer(server);
      const res = await post(server, '/checkout/session', { pack: 'starter' }, bearer(await jwtFor(server, accountId)));
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ error: 'checkout provider not configured' });
      expect(
        (
          await fetch(`${server.url}/webhook/processor`, {
            method: 'POST',
            body: '{}',
            headers: { 'content-type': 'application/json' },
          })
        ).status,
      ).toBe(503);
    } finally {
      await server.stop();
    }
  });
});
