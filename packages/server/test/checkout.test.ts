import { PurchaseList } from '@axle/sdk';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ledgerReport } from '../src/services/ledger-check.js';
import { creditsStore } from '../src/store/credits.js';
import { ledgerStore } from '../src/store/ledger.js';
import { startTestServer, type TestServer } from '../../../test/support/server.js';
import { bearer, post } from '../../../test/support/identity.js';
import { getUnlock, jwtFor, newBuyer, seedLearning } from './money-helpers.js';
import { startProcessorStandIn } from './processor-standin.js';

const SECRET = 'sk_test_axle';
const WEBHOOK_SECRET = 'whsec_test_axle';
const stripe = new Stripe(SECRET);

/** A validly signed event: everything below is what an attacker holding the signing secret could send. */
function signedEvent(event: object) {
  const payload = JSON.stringify(event);
  return { payload, header: stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET }) };
}

let seq = 0;
const event = (type: string, object: unknown) => ({
  id: `evt_${++seq}_${type}`,
  object: 'event',
  type,
  data: { object },
});

const session = (id: string, over: Record<string, unknown> = {}) => ({
  id,
  object: 'checkout.session',
  amount_total: 1000,
  currency: 'usd',
  payment_status: 'paid',
  payment_intent: `pi_${id}`,
  metadata: {},
  ...over,
});

const webhook = (server: TestServer, e: { payload: string; header: string }) =>
  fetch(`${server.url}/webhook/processor`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'stripe-signature': e.header },
    body: e.payload,
  });
const send = async (server: TestServer, ev: object) => {
  const res = await webhook(server, signedEvent(ev));
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

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

  /** An account and a checkout session this server opened for `pack`. */
  async function checkout(pack = 'starter') {
    const { accountId, key } = await newBuyer(server);
    const res = await post(server, '/checkout/session', { pack }, bearer(await jwtFor(server, accountId)));
    expect(res.status).toBe(200);
    return { accountId, key, sessionId: ((await res.json()) as { session_id: string }).session_id };
  }
  const credits = (accountId: string) => creditsStore.balance(server.db, accountId);
  /**
   * Takes up to `most` of the buyer's unlock credits one by one, as unlocks do: the money each carried. In one
   * transaction, so a pack's worth is one commit rather than one each (seconds on PostgreSQL).
   */
  const takeUnlocks = (accountId: string, most = Number.POSITIVE_INFINITY) =>
    server.db.tx(async (q) => {
      const taken: number[] = [];
      while (taken.length < most) {
        const micro = await creditsStore.takeUnlock(q, accountId, server.clock.now());
        if (micro === undefined) break;
        taken.push(micro);
      }
      return taken;
    });
  const sum = (micros: number[]) => micros.reduce((a, b) => a + b, 0);

  it('POST /checkout/session opens a hosted checkout and records the session it will trust', async () => {
    const { accountId } = await newBuyer(server);
    const res = await post(server, '/checkout/session', { pack: 'growth' }, bearer(await jwtFor(server, accountId)));
    expect(res.status).toBe(200);
    const body = (await res.json()) as { url: string; session_id: string };
    expect(body.session_id).toMatch(/^cs_test_/);
    expect(body.url).toBe(`${standIn.url}/pay/${body.session_id}`);
    const sent = standIn.requests.find((r) => r.path === '/v1/checkout/sessions')!.form;
    expect(sent.get('mode')).toBe('payment');
    expect(sent.get('line_items[0][price_data][unit_amount]')).toBe('2500');
    expect(sent.get('line_items[0][price_data][currency]')).toBe('usd');
    expect(await creditsStore.session(server.db, body.session_id)).toMatchObject({
      account_id: accountId,
      pack_id: 'growth',
      amount_cents: 2500,
      currency: 'usd',
    });
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
    // A pack name up to the body limit is not echoed back.
    const long = await post(
      server,
      '/checkout/session',
      { pack: 'x'.repeat(500_000) },
      bearer(await jwtFor(server, accountId)),
    );
    expect(long.status).toBe(400);
    expect((await long.text()).length).toBeLessThan(2_000);
  });

  it('a paid checkout.session.completed of a recorded session credits once; replays do not', async () => {
    const { accountId, sessionId } = await checkout('starter');
    const e = signedEvent(event('checkout.session.completed', session(sessionId)));
    const results = await Promise.all(
      Array.from({ length: 10 }, () => webhook(server, e).then((r) => r.json() as Promise<Record<string, unknown>>)),
    );
    const processed = results.filter((r) => r.processed === true);
    expect(processed).toHaveLength(1);
    expect(results.filter((r) => r.already_processed === true)).toHaveLength(9);
    expect(new Set(results.map((r) => r.purchase_id)).size).toBe(1);
    // The same session completed again under another event id credits nothing either.
    expect((await send(server, event('checkout.session.completed', session(sessionId)))).body).toMatchObject({
      processed: false,
      already_processed: true,
      outcome: 'already_credited',
    });
    expect(await credits(accountId)).toEqual({ unlocks: 100, queries: 1000 });
    const list = PurchaseList.parse(
      await (
        await fetch(`${server.url}/account/purchases`, { headers: bearer(await jwtFor(server, accountId)) })
      ).json(),
    );
    expect(list.total_spent_usd).toBe(10);
    expect(list.credit_debt).toEqual({ unlocks: 0, amount_usd: 0, settled_usd: 0 });
    expect(list.purchases).toEqual([
      expect.objectContaining({ id: processed[0]!.purchase_id, pack_id: 'starter', amount_usd: 10 }),
    ]);
  });

  it('fault 4: validly signed events that did not pay the recorded amount grant nothing and never 500', async () => {
    const { accountId, sessionId } = await checkout('pro');
    const victim = await newBuyer(server);
    const completed = (over: Record<string, unknown>) => event('checkout.session.completed', session(sessionId, over));
    const answers = [
      await send(server, completed({ amount_total: 1 })),
      await send(server, completed({ amount_total: 0 })),
      await send(server, completed({ amount_total: -10000 })),
      await send(server, completed({ amount_total: 1e300 })),
      await send(server, completed({ amount_total: 10000, currency: 'jpy' })),
      await send(server, completed({ amount_total: 10000, payment_status: 'no_payment_required' })),
      await send(server, completed({ amount_total: 10000, payment_status: 'unpaid' })),
      // A session this server never created, naming another account and pack in its metadata.
      await send(
        server,
        event(
          'checkout.session.completed',
          session('cs_test_never_created', {
            amount_total: 10000,
            metadata: { account_id: victim.accountId, pack_id: 'pro' },
            client_reference_id: victim.accountId,
          }),
        ),
      ),
    ];
    expect(answers.map((a) => [a.status, a.body.processed, a.body.outcome])).toEqual([
      [200, false, 'amount_mismatch'],
      [200, false, 'amount_mismatch'],
      [200, false, 'amount_mismatch'],
      [200, false, 'amount_mismatch'],
      [200, false, 'amount_mismatch'],
      [200, false, 'not_paid'],
      [200, false, 'not_paid'],
      [200, false, 'unknown_session'],
    ]);
    // Wrong types are malformed: 400.
    const typed = await send(server, completed({ amount_total: '10000' }));
    expect(typed.status).toBe(400);
    expect(typed.body).toMatchObject({ code: 'validation_error', error: expect.stringMatching(/amount_total/) });
    expect(await credits(accountId)).toEqual({ unlocks: 0, queries: 0 });
    expect(await credits(victim.accountId)).toEqual({ unlocks: 0, queries: 0 });
    // Each one is recorded with what did not match.
    const recorded = await server.db.get<{ detail: string }>(
      "SELECT detail FROM processor_events WHERE outcome = 'amount_mismatch' AND detail LIKE '%1e+300%'",
    );
    expect(JSON.parse(recorded!.detail)).toMatchObject({ expected: { amount_total: 10000, currency: 'usd' } });
    // The real payment still credits the recorded account with the recorded pack.
    expect((await send(server, completed({ amount_total: 10000 }))).body).toMatchObject({ outcome: 'credited' });
    expect(await credits(accountId)).toEqual({ unlocks: 1500, queries: 15000 });
    const total = PurchaseList.parse(
      await (
        await fetch(`${server.url}/account/purchases`, { headers: bearer(await jwtFor(server, accountId)) })
      ).json(),
    ).total_spent_usd;
    expect(total).toBe(100);
  });

  it("credits an event nested as deep as the processor's objects are (a session's discount breakdown)", async () => {
    const { accountId, sessionId } = await checkout('starter');
    // total_details.breakdown.discounts[].discount.coupon.applies_to.products: 10 levels below the event.
    const deep = session(sessionId, {
      total_details: {
        breakdown: {
          discounts: [{ amount: 0, discount: { coupon: { applies_to: { products: [{ meta: { x: 1 } }] } } } }],
        },
      },
    });
    const { status, body } = await send(server, event('checkout.session.completed', deep));
    expect(status).toBe(200);
    expect(body).toMatchObject({ processed: true });
    expect(await credits(accountId)).toEqual({ unlocks: 100, queries: 1000 });
  });

  it('a bad signature and malformed signed events (empty data, null ids, wrong types) are 400, never 500', async () => {
    const { accountId, sessionId } = await checkout('starter');
    const e = signedEvent(event('checkout.session.completed', session(sessionId)));
    const forged = await webhook(server, { payload: e.payload.replace('"paid"', '"paid" '), header: e.header });
    expect(forged.status).toBe(400);
    expect(await forged.json()).toMatchObject({ error: 'invalid signature' });
    // Another secret, no header, a signature older than the SDK's 5 minutes (a captured event replayed, checked
    // against the wall clock the header's timestamp comes from); a signed body that is not JSON.
    const header = (payload: string, over: { secret?: string; timestamp?: number } = {}) =>
      stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET, ...over });
    const refused = [
      { payload: e.payload, header: header(e.payload, { secret: 'whsec_other' }) },
      { payload: e.payload, header: '' },
      { payload: e.payload, header: header(e.payload, { timestamp: Math.floor(Date.now() / 1000) - 600 }) },
    ];
    for (const r of refused) {
      const res = await webhook(server, r);
      expect([res.status, ((await res.json()) as { error: string }).error]).toEqual([400, 'invalid signature']);
    }
    const notJson = await webhook(server, { payload: 'not json', header: header('not json') });
    expect([notJson.status, ((await notJson.json()) as { code: string }).code]).toEqual([400, 'malformed_json']);
    const eventId = (JSON.parse(e.payload) as { id: string }).id;
    expect(await server.db.get('SELECT 1 FROM processor_events WHERE event_id = ?', [eventId])).toBeUndefined();
    const malformed = [
      { id: 'evt_m1', object: 'event', type: 'checkout.session.completed', data: {} },
      { id: 'evt_m2', object: 'event', type: 'checkout.session.completed', data: null },
      { id: 'evt_m3', object: 'event', type: 'checkout.session.completed' },
      event('checkout.session.completed', session(sessionId, { id: null })),
      event('checkout.session.completed', {}),
      event('checkout.session.completed', session(sessionId, { payment_status: 1 })),
      event('checkout.session.completed', session(sessionId, { currency: 840 })),
      event('charge.refunded', {}),
      event('charge.refunded', { payment_intent: `pi_${sessionId}`, amount: '1000', amount_refunded: 1000 }),
      event('charge.dispute.created', { payment_intent: 42, amount: 1000 }),
      { id: null, object: 'event', type: 'checkout.session.completed', data: { object: session(sessionId) } },
      { id: 'evt_m4', object: 'event', type: 42, data: { object: session(sessionId) } },
      [],
      'null',
    ];
    for (const m of malformed) {
      const r = await send(server, m as object);
      expect([r.status, r.body.code], JSON.stringify(m)).toEqual([400, 'validation_error']);
    }
    expect(await credits(accountId)).toEqual({ unlocks: 0, queries: 0 });
    // Types the server does not act on are acknowledged.
    expect((await send(server, event('customer.created', { id: 'cus_1' }))).body).toEqual({
      received: true,
      processed: false,
      already_processed: false,
      purchase_id: null,
      outcome: 'ignored',
    });
  });

  it('a credit unlock books at most the money behind the credit: $10 of Starter credits never earn more than $7', async () => {
    // Found by an outsider: one $10 pack unlocked 100 learnings priced $50 by a colluding contributor, who
    // then held $3,500 withdrawable, and ledger:check saw nothing.
    const { accountId, key, sessionId } = await checkout('starter');
    await send(server, event('checkout.session.completed', session(sessionId)));
    const contributor = await newBuyer(server, { terms: true });
    const learnings = [];
    for (let i = 0; i < 100; i++)
      learnings.push(
        await seedLearning(server, { contributorAccountId: contributor.accountId, currentPriceMicro: 50_000_000 }),
      );
    const cheap = await seedLearning(server, {
      contributorAccountId: contributor.accountId,
      currentPriceMicro: 50_000,
    });
    for (const l of learnings.slice(0, 99)) {
      const res = await getUnlock(server, l.id, { 'x-api-key': key });
      expect(res.status).toBe(200);
      // The price is what was asked; what was paid is the credit's share of the $10.
      expect(((await res.json()) as { _revenue: unknown })._revenue).toMatchObject({
        unlock_price_usd: 50,
        amount_paid_usd: 0.1,
        contributor_earned_usd: 0.07,
      });
    }
    // A learning cheaper than the credit books its price; the rest of the credit's money is not the contributor's.
    const res = await getUnlock(server, cheap.id, { 'x-api-key': key });
    expect(((await res.json()) as { _revenue: unknown })._revenue).toMatchObject({ amount_paid_usd: 0.05 });
    expect(await credits(accountId)).toEqual({ unlocks: 0, queries: 1_000 });
    expect((await getUnlock(server, learnings[99]!.id, { 'x-api-key': key })).status).toBe(402);
    const balance = await ledgerStore.balance(server.db, contributor.accountId);
    expect(balance.owned_micro).toBe(99 * 70_000 + 35_000);
    expect(balance.owned_micro).toBeLessThanOrEqual(7_000_000);
    expect((await ledgerReport(server.db)).problems).toEqual([]);
    // An unlock booked above what its buyer paid for credits shows in ledger:check.
    const seen = await server.db
      .tx(async (q) => {
        await q.run(
          'UPDATE unlocks SET gross_micro = gross_micro + 100000, platform_micro = platform_micro + 100000 WHERE buyer = ? AND learning_id = ?',
          [accountId, cheap.id],
        );
        throw (await ledgerReport(q)).problems;
      })
      .catch((problems: string[]) => problems);
    expect(seen).toContainEqual(expect.stringMatching(/^credit unlocks booked above what the buyer paid for credits/));
  });

  it("shares a pack's money over its credits exactly: the last credit takes what is left", async () => {
    const { accountId, sessionId } = await checkout('growth');
    await send(server, event('checkout.session.completed', session(sessionId, { amount_total: 2500 })));
    // All of them: 300, then none.
    const taken = await takeUnlocks(accountId);
    expect(taken).toHaveLength(300);
    expect(sum(taken)).toBe(25_000_000);
    expect(Math.min(...taken)).toBe(83_333);
    expect(Math.max(...taken)).toBeLessThan(83_333 + 300);
  });

  it('charge.refunded takes back unspent credits; spent ones become a debt shown in the account and ledger:check', async () => {
    const { accountId, sessionId } = await checkout('starter');
    await send(server, event('checkout.session.completed', session(sessionId)));
    // Each Starter credit has $10 / 100 behind it.
    for (let i = 0; i < 30; i++)
      expect(await creditsStore.takeUnlock(server.db, accountId, server.clock.now())).toBe(100_000);
    const refund = event('charge.refunded', {
      id: 'ch_1',
      object: 'charge',
      payment_intent: `pi_${sessionId}`,
      amount: 1000,
      amount_refunded: 1000,
    });
    const r = await send(server, refund);
    expect(r.body).toMatchObject({ processed: true, outcome: 'reversed' });
    expect(await credits(accountId)).toEqual({ unlocks: 0, queries: 0 });
    const list = PurchaseList.parse(
      await (
        await fetch(`${server.url}/account/purchases`, { headers: bearer(await jwtFor(server, accountId)) })
      ).json(),
    );
    expect(list.credit_debt).toEqual({ unlocks: 30, amount_usd: 3, settled_usd: 0 });
    // A replay, and a dispute of the refunded charge, take nothing more.
    expect((await send(server, refund)).body).toMatchObject({ already_processed: true });
    await send(server, event('charge.dispute.created', { payment_intent: `pi_${sessionId}`, amount: 1000 }));
    expect(await creditsStore.debtOf(server.db, accountId)).toMatchObject({ unlocks: 30, amount_micro: 3_000_000 });
    const report = await ledgerReport(server.db);
    expect(report.problems).toEqual([]);
    expect(report.debts.unlocks).toBeGreaterThanOrEqual(30);
    // A debt taken off the books, or a reversal booked short, would show.
    for (const tamper of [
      'DELETE FROM credit_debts WHERE account_id = ?',
      'UPDATE purchases SET reversed_unlocks = 70, revoked_unlocks = 40 WHERE account_id = ?',
    ]) {
      const seen = await server.db
        .tx(async (q) => {
          await q.run(tamper, [accountId]);
          throw (await ledgerReport(q)).problems;
        })
        .catch((problems: string[]) => problems);
      expect(seen).toEqual([expect.stringMatching(/^reversed purchase with credits neither taken back nor owed/)]);
    }
    expect((await ledgerReport(server.db)).problems).toEqual([]);
  });

  /** Another checkout session of `pack` for an existing account. */
  async function checkoutFor(accountId: string, pack = 'starter') {
    const res = await post(server, '/checkout/session', { pack }, bearer(await jwtFor(server, accountId)));
    expect(res.status).toBe(200);
    return ((await res.json()) as { session_id: string }).session_id;
  }
  const debtShown = async (accountId: string) =>
    PurchaseList.parse(
      await (
        await fetch(`${server.url}/account/purchases`, { headers: bearer(await jwtFor(server, accountId)) })
      ).json(),
    ).credit_debt;
  const creditValue = async (accountId: string) =>
    Number(
      (
        await server.db.get<{ v: number }>('SELECT unlock_value_micro AS v FROM credit_balances WHERE account_id = ?', [
          accountId,
        ])
      )?.v ?? 0,
    );
  /** A Starter bought, 30 credits spent, the charge disputed: $3 owed. */
  async function inDebt() {
    const { accountId, sessionId } = await checkout('starter');
    await send(server, event('checkout.session.completed', session(sessionId)));
    for (let i = 0; i < 30; i++) await creditsStore.takeUnlock(server.db, accountId, server.clock.now());
    await send(server, event('charge.dispute.created', { payment_intent: `pi_${sessionId}`, amount: 1000 }));
    expect(await debtShown(accountId)).toEqual({ unlocks: 30, amount_usd: 3, settled_usd: 0 });
    return accountId;
  }

  it('fault: a purchase after a disputed, partly spent pack pays the debt first instead of granting every credit', async () => {
    // Found by an outsider probe: buy, spend, dispute, buy again — the second pack gave all its credits, the debt
    // stayed on the books and the platform absorbed every spent credit.
    const accountId = await inDebt();
    const second = await checkoutFor(accountId);
    const r = await send(server, event('checkout.session.completed', session(second)));
    expect(r.body).toMatchObject({ processed: true, outcome: 'credited' });
    // $3 of the $10 pays the debt: the 30 credits it would have bought are not granted, $7 backs the other 70.
    expect(await credits(accountId)).toEqual({ unlocks: 70, queries: 700 });
    expect(await creditValue(accountId)).toBe(7_000_000);
    expect(await debtShown(accountId)).toEqual({ unlocks: 0, amount_usd: 0, settled_usd: 3 });
    expect((await ledgerReport(server.db)).problems).toEqual([]);
    // A refund of the second pack returns the money that paid the debt: owed again, with the credits spent since.
    for (let i = 0; i < 10; i++)
      expect(await creditsStore.takeUnlock(server.db, accountId, server.clock.now())).toBe(100_000);
    await send(
      server,
      event('charge.refunded', { payment_intent: `pi_${second}`, amount: 1000, amount_refunded: 1000 }),
    );
    expect(await credits(accountId)).toEqual({ unlocks: 0, queries: 0 });
    expect(await creditValue(accountId)).toBe(0);
    expect(await debtShown(accountId)).toEqual({ unlocks: 40, amount_usd: 4, settled_usd: 3 });
    expect((await ledgerReport(server.db)).problems).toEqual([]);
  });

  it('a debt larger than the new pack takes all of it; the rest stays owed', async () => {
    const { accountId, sessionId } = await checkout('growth');
    await send(server, event('checkout.session.completed', session(sessionId, { amount_total: 2500 })));
    let spent = 0;
    for (let i = 0; i < 200; i++) spent += (await creditsStore.takeUnlock(server.db, accountId, server.clock.now()))!;
    await send(server, event('charge.dispute.created', { payment_intent: `pi_${sessionId}`, amount: 2500 }));
    expect(await creditsStore.debtOf(server.db, accountId)).toMatchObject({ unlocks: 200, amount_micro: spent });
    await send(server, event('checkout.session.completed', session(await checkoutFor(accountId))));
    expect(await credits(accountId)).toEqual({ unlocks: 0, queries: 0 });
    expect(await creditValue(accountId)).toBe(0);
    const debt = await creditsStore.debtOf(server.db, accountId);
    expect(debt.amount_micro).toBe(spent - 10_000_000);
    expect(debt.unlocks).toBe(200 - Math.floor((200 * 10_000_000) / spent));
    expect((await debtShown(accountId)).settled_usd).toBe(10);
    expect((await ledgerReport(server.db)).problems).toEqual([]);
  });

  it('a completion racing its refund, or its async success, credits once and loses no reversal', async () => {
    // Delivered at the same moment: the refund finds no purchase yet while the completion finds no refund yet,
    // unless the two are serialised; and two crediting events of one session each insert a purchase.
    const runs = await Promise.all(
      Array.from({ length: 8 }, async () => {
        const { accountId, sessionId } = await checkout('starter');
        const pi = `pi_${sessionId}`;
        const answers = await Promise.all([
          send(server, event('checkout.session.completed', session(sessionId))),
          send(server, event('checkout.session.async_payment_succeeded', session(sessionId))),
          send(server, event('charge.refunded', { payment_intent: pi, amount: 1000, amount_refunded: 600 })),
          send(server, event('charge.dispute.created', { payment_intent: pi, amount: 400 })),
        ]);
        return { accountId, statuses: answers.map((a) => a.status), outcomes: answers.map((a) => a.body.outcome) };
      }),
    );
    for (const r of runs) {
      expect(r.statuses).toEqual([200, 200, 200, 200]);
      expect(r.outcomes.slice(0, 2).sort()).toEqual(['already_credited', 'credited']);
      expect(await credits(r.accountId)).toEqual({ unlocks: 0, queries: 0 });
      expect(await creditValue(r.accountId)).toBe(0);
      expect(await creditsStore.debtOf(server.db, r.accountId)).toEqual({ unlocks: 0, queries: 0, amount_micro: 0 });
    }
    const purchases = await server.db.get<{ n: number }>(
      `SELECT COUNT(*) AS n FROM purchases WHERE account_id IN (${runs.map(() => '?').join(', ')})`,
      runs.map((r) => r.accountId),
    );
    expect(Number(purchases!.n)).toBe(runs.length);
    expect((await ledgerReport(server.db)).problems).toEqual([]);
  });

  it('purchases completing concurrently pay a debt once', async () => {
    const accountId = await inDebt();
    const sessions = [await checkoutFor(accountId), await checkoutFor(accountId), await checkoutFor(accountId)];
    const answers = await Promise.all(
      sessions.map((id) => send(server, event('checkout.session.completed', session(id)))),
    );
    expect(answers.map((a) => a.body.outcome)).toEqual(['credited', 'credited', 'credited']);
    expect(await credits(accountId)).toEqual({ unlocks: 270, queries: 2_700 });
    expect(await creditValue(accountId)).toBe(27_000_000);
    expect(await debtShown(accountId)).toEqual({ unlocks: 0, amount_usd: 0, settled_usd: 3 });
    expect((await ledgerReport(server.db)).problems).toEqual([]);
  });

  it('a partial refund takes back its share; a dispute of the rest takes the remainder', async () => {
    const { accountId, sessionId } = await checkout('growth');
    await send(server, event('checkout.session.completed', session(sessionId, { amount_total: 2500 })));
    const pi = `pi_${sessionId}`;
    await send(server, event('charge.refunded', { payment_intent: pi, amount: 2500, amount_refunded: 1250 }));
    expect(await credits(accountId)).toEqual({ unlocks: 150, queries: 1500 });
    await send(server, event('charge.dispute.created', { payment_intent: { id: pi }, amount: 2500 }));
    expect(await credits(accountId)).toEqual({ unlocks: 0, queries: 0 });
    expect(await creditsStore.debtOf(server.db, accountId)).toMatchObject({ unlocks: 0 });
    for (const payment_intent of ['pi_unknown', null])
      expect(
        (await send(server, event('charge.refunded', { payment_intent, amount: 5, amount_refunded: 5 }))).body,
      ).toMatchObject({ processed: false, outcome: 'unknown_purchase' });
  });

  it('fault: a dispute of what a partial refund left takes the rest back: refunds and disputes add up', async () => {
    // Found by an outsider: half of a Growth pack refunded, the other half disputed with the card issuer. The
    // dispute ($12.50) was no more than the refund ($12.50), so it took nothing: 150 credits and $12.50 of value
    // stayed, unlocks booked it for contributors though all $25 went back, and ledger:check saw nothing.
    const { accountId, sessionId } = await checkout('growth');
    await send(server, event('checkout.session.completed', session(sessionId, { amount_total: 2500 })));
    const pi = `pi_${sessionId}`;
    await send(server, event('charge.refunded', { payment_intent: pi, amount: 2500, amount_refunded: 1250 }));
    expect(await credits(accountId)).toEqual({ unlocks: 150, queries: 1500 });
    let spent = 0;
    for (let i = 0; i < 100; i++) spent += (await creditsStore.takeUnlock(server.db, accountId, server.clock.now()))!;
    const dispute = await send(server, event('charge.dispute.created', { payment_intent: pi, amount: 1250 }));
    expect(dispute.body).toMatchObject({ processed: true, outcome: 'reversed' });
    expect(await credits(accountId)).toEqual({ unlocks: 0, queries: 0 });
    expect(await creditValue(accountId)).toBe(0);
    expect(await creditsStore.debtOf(server.db, accountId)).toEqual({ unlocks: 100, queries: 0, amount_micro: spent });
    expect((await ledgerReport(server.db)).problems).toEqual([]);
    // Disputed first, then refunded in two steps (the refunds cumulative): each adds to the dispute.
    const b = await checkout('growth');
    await send(server, event('checkout.session.completed', session(b.sessionId, { amount_total: 2500 })));
    const piB = `pi_${b.sessionId}`;
    await send(server, event('charge.dispute.created', { payment_intent: piB, amount: 1000 }));
    await send(server, event('charge.refunded', { payment_intent: piB, amount: 2500, amount_refunded: 500 }));
    expect(await credits(b.accountId)).toEqual({ unlocks: 120, queries: 1200 });
    // The first refund's event delivered again late, under another id, adds nothing: refunds are cumulative.
    await send(server, event('charge.refunded', { payment_intent: piB, amount: 2500, amount_refunded: 500 }));
    expect(await credits(b.accountId)).toEqual({ unlocks: 120, queries: 1200 });
    await send(server, event('charge.refunded', { payment_intent: piB, amount: 2500, amount_refunded: 1500 }));
    expect(await credits(b.accountId)).toEqual({ unlocks: 0, queries: 0 });
    expect(await creditsStore.debtOf(server.db, b.accountId)).toEqual({ unlocks: 0, queries: 0, amount_micro: 0 });
    expect((await ledgerReport(server.db)).problems).toEqual([]);
  });

  it("a refund takes back the refunded purchase's money, not the average of every pack the buyer holds", async () => {
    // Found by an outsider: credits of several packs share one value, and a reversal took the revoked credits'
    // share of that average. A refunded $10 Starter (100,000 a credit) held beside a $100 Pro (66,666 a credit)
    // took back 6,875,000, so the Pro's 1,500 credits kept $103.125 of value for $100 paid: their unlocks booked
    // $3.125 of refunded money, and ledger:check, holding unlocks against purchases before refunds, saw nothing.
    const buy = async (accountId: string, pack: string, cents: number) => {
      const res = await post(server, '/checkout/session', { pack }, bearer(await jwtFor(server, accountId)));
      const { session_id } = (await res.json()) as { session_id: string };
      await send(server, event('checkout.session.completed', session(session_id, { amount_total: cents })));
      return `pi_${session_id}`;
    };
    const a = (await newBuyer(server)).accountId;
    await buy(a, 'pro', 10_000);
    const starter = await buy(a, 'starter', 1000);
    await send(server, event('charge.refunded', { payment_intent: starter, amount: 1000, amount_refunded: 1000 }));
    expect(await credits(a)).toEqual({ unlocks: 1500, queries: 15_000 });
    expect(sum(await takeUnlocks(a))).toBe(100_000_000);
    // The other way round: a refunded Pro leaves the Starter's credits the $10 paid for them, not $6.875.
    const b = (await newBuyer(server)).accountId;
    const pro = await buy(b, 'pro', 10_000);
    await buy(b, 'starter', 1000);
    await send(server, event('charge.dispute.created', { payment_intent: pro, amount: 10_000 }));
    expect(await credits(b)).toEqual({ unlocks: 100, queries: 1000 });
    expect(sum(await takeUnlocks(b))).toBe(10_000_000);
    // Credits spent before a refund booked the pool's money; what of the refunded money they booked is a debt.
    const c = (await newBuyer(server)).accountId;
    await buy(c, 'pro', 10_000);
    const late = await buy(c, 'starter', 1000);
    const spent = await takeUnlocks(c, 1500);
    expect(spent).toHaveLength(1500);
    expect(sum(spent)).toBe(103_125_000);
    await send(server, event('charge.refunded', { payment_intent: late, amount: 1000, amount_refunded: 1000 }));
    expect(await credits(c)).toEqual({ unlocks: 0, queries: 15_000 });
    expect(await creditsStore.debtOf(server.db, c)).toEqual({ unlocks: 0, queries: 0, amount_micro: 3_125_000 });
    expect((await ledgerReport(server.db)).problems).toEqual([]);
  });

  it('unlocks racing a refund and a dispute of one of the packs keep credits, value and bookings exact', async () => {
    const { accountId, key, sessionId } = await checkout('pro');
    await send(server, event('checkout.session.completed', session(sessionId, { amount_total: 10_000 })));
    const res = await post(server, '/checkout/session', { pack: 'starter' }, bearer(await jwtFor(server, accountId)));
    const starter = ((await res.json()) as { session_id: string }).session_id;
    await send(server, event('checkout.session.completed', session(starter)));
    const contributor = await newBuyer(server, { terms: true });
    const learnings = [];
    for (let i = 0; i < 30; i++)
      learnings.push(
        await seedLearning(server, { contributorAccountId: contributor.accountId, currentPriceMicro: 50_000_000 }),
      );
    const pi = `pi_${starter}`;
    const answers = await Promise.all([
      ...learnings.map((l) => getUnlock(server, l.id, { 'x-api-key': key }).then((r) => r.status)),
      send(server, event('charge.refunded', { payment_intent: pi, amount: 1000, amount_refunded: 400 })).then(
        (r) => r.status,
      ),
      send(server, event('charge.dispute.created', { payment_intent: pi, amount: 1000 })).then((r) => r.status),
    ]);
    expect(answers.every((s) => s === 200)).toBe(true);
    const row = (await server.db.get<{ unlocks: number; value: number }>(
      'SELECT unlocks, unlock_value_micro AS value FROM credit_balances WHERE account_id = ?',
      [accountId],
    ))!;
    const booked = Number(
      (await server.db.get<{ s: number }>('SELECT SUM(gross_micro) AS s FROM unlocks WHERE buyer = ?', [accountId]))!.s,
    );
    const debt = await creditsStore.debtOf(server.db, accountId);
    expect(row.unlocks).toBe(1600 - 30 - 100);
    // Every micro paid is booked, still behind a credit, or went back with the refund (less what spent credits owe).
    expect(booked + Number(row.value) + 10_000_000 - Number(debt.amount_micro)).toBe(110_000_000);
    expect((await ledgerReport(server.db)).problems).toEqual([]);
  });

  it('ledger:check holds credit unlocks against the money paid less what was refunded, plus debts', async () => {
    const { accountId, sessionId } = await checkout('starter');
    await send(server, event('checkout.session.completed', session(sessionId)));
    const contributor = await newBuyer(server, { terms: true });
    const l = await seedLearning(server, {
      contributorAccountId: contributor.accountId,
      currentPriceMicro: 50_000_000,
    });
    await send(
      server,
      event('charge.refunded', { payment_intent: `pi_${sessionId}`, amount: 1000, amount_refunded: 1000 }),
    );
    expect((await ledgerReport(server.db)).problems).toEqual([]);
    // An unlock booked on a refunded pack's money, with no debt behind it, shows.
    const seen = await server.db
      .tx(async (q) => {
        await q.run(
          `INSERT INTO unlocks (id, learning_id, buyer, path, gross_micro, contributor_micro, platform_micro, payee,
             held, discovery, self_dealing, accrual_capped, settlement_path, tx_hash, created_at)
           VALUES ('unl_tampered', ?, ?, 'key', 100000, 0, 100000, NULL, 0, 0, 0, 0, NULL, NULL, 0)`,
          [l.id, accountId],
        );
        await q.run(
          'UPDATE learnings SET unlock_count = unlock_count + 1, gross_micro = gross_micro + 100000, platform_micro = platform_micro + 100000 WHERE id = ?',
          [l.id],
        );
        throw (await ledgerReport(q)).problems;
      })
      .catch((problems: string[]) => problems);
    expect(seen).toContainEqual(expect.stringMatching(/^credit unlocks booked above what the buyer paid for credits/));
  });

  it('a refund and a dispute of one charge racing take the credits back once', async () => {
    const { accountId, sessionId } = await checkout('starter');
    await send(server, event('checkout.session.completed', session(sessionId)));
    for (let i = 0; i < 10; i++) await creditsStore.takeUnlock(server.db, accountId, server.clock.now());
    const pi = `pi_${sessionId}`;
    const answers = await Promise.all([
      ...Array.from({ length: 5 }, () =>
        send(server, event('charge.refunded', { payment_intent: pi, amount: 1000, amount_refunded: 1000 })),
      ),
      ...Array.from({ length: 5 }, () =>
        send(server, event('charge.dispute.created', { payment_intent: pi, amount: 1000 })),
      ),
    ]);
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(await credits(accountId)).toEqual({ unlocks: 0, queries: 0 });
    expect(await creditsStore.debtOf(server.db, accountId)).toMatchObject({ unlocks: 10, amount_micro: 1_000_000 });
    expect((await ledgerReport(server.db)).problems).toEqual([]);
  });

  it('a refund or dispute delivered before the checkout completion is applied when the purchase is credited', async () => {
    // The processor does not promise delivery order: a completion whose delivery failed is retried after the
    // charge was already refunded or disputed, and that reversal must not be lost.
    const a = await checkout('starter');
    const refundFirst = await send(
      server,
      event('charge.refunded', { payment_intent: `pi_${a.sessionId}`, amount: 1000, amount_refunded: 1000 }),
    );
    expect(refundFirst.body).toMatchObject({ processed: false, outcome: 'unknown_purchase' });
    expect((await send(server, event('checkout.session.completed', session(a.sessionId)))).body).toMatchObject({
      outcome: 'credited',
    });
    expect(await credits(a.accountId)).toEqual({ unlocks: 0, queries: 0 });
    const b = await checkout('growth');
    await send(server, event('charge.dispute.created', { payment_intent: `pi_${b.sessionId}`, amount: 1250 }));
    await send(
      server,
      event('charge.refunded', { payment_intent: `pi_${b.sessionId}`, amount: 2500, amount_refunded: 500 }),
    );
    await send(server, event('checkout.session.completed', session(b.sessionId, { amount_total: 2500 })));
    // $12.50 disputed and $5 refunded: $17.50 of $25 back, 210 of the 300 credits taken.
    expect(await credits(b.accountId)).toEqual({ unlocks: 90, queries: 900 });
    // A later, larger refund takes only what the early one did not.
    await send(
      server,
      event('charge.refunded', { payment_intent: `pi_${b.sessionId}`, amount: 2500, amount_refunded: 2500 }),
    );
    expect(await credits(b.accountId)).toEqual({ unlocks: 0, queries: 0 });
    expect(await creditsStore.debtOf(server.db, b.accountId)).toMatchObject({ unlocks: 0 });
    expect((await ledgerReport(server.db)).problems).toEqual([]);
  });

  it('an asynchronous payment: unpaid completion grants nothing; it credits on success, and its failure is recorded', async () => {
    const a = await checkout('starter');
    await send(server, event('checkout.session.completed', session(a.sessionId, { payment_status: 'unpaid' })));
    expect(await credits(a.accountId)).toEqual({ unlocks: 0, queries: 0 });
    expect(
      (await send(server, event('checkout.session.async_payment_succeeded', session(a.sessionId)))).body,
    ).toMatchObject({ outcome: 'credited' });
    expect(await credits(a.accountId)).toEqual({ unlocks: 100, queries: 1000 });
    const b = await checkout('starter');
    await send(server, event('checkout.session.completed', session(b.sessionId, { payment_status: 'unpaid' })));
    const failed = await send(
      server,
      event('checkout.session.async_payment_failed', session(b.sessionId, { payment_status: 'unpaid' })),
    );
    expect(failed.body).toMatchObject({ processed: false, outcome: 'session_failed' });
    expect(await credits(b.accountId)).toEqual({ unlocks: 0, queries: 0 });
    // A failure reported after the session was credited takes the credits back.
    const c = await checkout('starter');
    await send(server, event('checkout.session.completed', session(c.sessionId)));
    await send(server, event('checkout.session.async_payment_failed', session(c.sessionId)));
    expect(await credits(c.accountId)).toEqual({ unlocks: 0, queries: 0 });
  });
  // A won dispute: the processor returns the disputed money (charge.dispute.funds_reinstated, and
  // charge.dispute.closed with status won); the credits the dispute took back, or the debt it made, come back.
  let disputeSeq = 0;
  const dispute = (pi: string, amount: number, over: Record<string, unknown> = {}) => ({
    id: `du_${++disputeSeq}`,
    object: 'dispute',
    payment_intent: pi,
    amount,
    currency: 'usd',
    status: 'needs_response',
    ...over,
  });
  const won = (d: { id: string; payment_intent: string; amount: number }) => ({ ...d, status: 'won' });
  const paid = async (pack = 'starter', amount = 1000) => {
    const c = await checkout(pack);
    await send(server, event('checkout.session.completed', session(c.sessionId, { amount_total: amount })));
    return { ...c, pi: `pi_${c.sessionId}` };
  };

  it('fault: a won dispute whose funds were reinstated gives the credits back, once', async () => {
    const { accountId, pi } = await paid();
    const d = dispute(pi, 1000);
    await send(server, event('charge.dispute.created', d));
    expect(await credits(accountId)).toEqual({ unlocks: 0, queries: 0 });
    expect((await send(server, event('charge.dispute.closed', won(d)))).body).toMatchObject({ outcome: 'ignored' });
    expect(await credits(accountId)).toEqual({ unlocks: 0, queries: 0 });
    const reinstated = event('charge.dispute.funds_reinstated', won(d));
    expect((await send(server, reinstated)).body).toMatchObject({ processed: true, outcome: 'reinstated' });
    expect(await credits(accountId)).toEqual({ unlocks: 100, queries: 1000 });
    expect(await creditValue(accountId)).toBe(10_000_000);
    // A replay, and the same dispute reinstated again under another event id, give nothing more.
    expect((await send(server, reinstated)).body).toMatchObject({ already_processed: true, outcome: 'reinstated' });
    expect((await send(server, event('charge.dispute.funds_reinstated', won(d)))).body).toMatchObject({
      processed: false,
      outcome: 'already_reinstated',
    });
    expect(await credits(accountId)).toEqual({ unlocks: 100, queries: 1000 });
    expect(await creditValue(accountId)).toBe(10_000_000);
    expect((await ledgerReport(server.db)).problems).toEqual([]);
  });

  it('a lost dispute changes nothing further', async () => {
    const { accountId, pi } = await paid();
    const d = dispute(pi, 1000);
    await send(server, event('charge.dispute.created', d));
    await send(server, event('charge.dispute.closed', { ...d, status: 'lost' }));
    // Funds reinstated for a lost dispute (the refunded part of a partly refunded payment) give nothing either.
    const partly = await send(server, event('charge.dispute.funds_reinstated', { ...d, status: 'lost', amount: 400 }));
    expect(partly.body).toMatchObject({ processed: false, outcome: 'ignored' });
    expect(await credits(accountId)).toEqual({ unlocks: 0, queries: 0 });
    expect(await creditValue(accountId)).toBe(0);
    expect((await ledgerReport(server.db)).problems).toEqual([]);
  });

  it('reinstated after the credits were spent: the debt the dispute made is cancelled first, the rest credited', async () => {
    const { accountId, pi } = await paid();
    for (let i = 0; i < 30; i++) await creditsStore.takeUnlock(server.db, accountId, server.clock.now());
    const d = dispute(pi, 1000);
    await send(server, event('charge.dispute.created', d));
    expect(await debtShown(accountId)).toEqual({ unlocks: 30, amount_usd: 3, settled_usd: 0 });
    await send(server, event('charge.dispute.funds_reinstated', won(d)));
    expect(await debtShown(accountId)).toEqual({ unlocks: 0, amount_usd: 0, settled_usd: 0 });
    expect(await credits(accountId)).toEqual({ unlocks: 70, queries: 1000 });
    expect(await creditValue(accountId)).toBe(7_000_000);
    expect((await ledgerReport(server.db)).problems).toEqual([]);
    // The next purchase owes nothing.
    await send(server, event('checkout.session.completed', session(await checkoutFor(accountId))));
    expect(await credits(accountId)).toEqual({ unlocks: 170, queries: 2000 });
    expect((await ledgerReport(server.db)).problems).toEqual([]);
  });

  it('reinstated after a later purchase paid the debt: what it withheld comes back as credits', async () => {
    const { accountId, pi } = await paid();
    for (let i = 0; i < 30; i++) await creditsStore.takeUnlock(server.db, accountId, server.clock.now());
    const d = dispute(pi, 1000);
    await send(server, event('charge.dispute.created', d));
    await send(server, event('checkout.session.completed', session(await checkoutFor(accountId))));
    expect(await credits(accountId)).toEqual({ unlocks: 70, queries: 700 });
    await send(server, event('charge.dispute.funds_reinstated', won(d)));
    // $20 paid, 30 credits ($3) spent: 170 credits and $17 behind them, nothing owed; the 300 queries the second
    // pack withheld come back too (none was spent).
    expect(await credits(accountId)).toEqual({ unlocks: 170, queries: 2000 });
    expect(await creditValue(accountId)).toBe(17_000_000);
    expect((await debtShown(accountId)).amount_usd).toBe(0);
    expect((await ledgerReport(server.db)).problems).toEqual([]);
  });

  it('attack: won after a cheaper-per-credit pack paid part of its debt: the credits held are what was paid for', async () => {
    // A Pro ($100, 1,500 credits) with 1,000 spent, disputed; a Starter ($10, 100 credits) then pays $10 of the debt,
    // its 100 credits withheld. Won: as if never disputed, 500 Pro and 100 Starter credits, 15,000 + 1,000 queries.
    const { accountId, pi } = await paid('pro', 10_000);
    let spent = 0;
    for (let i = 0; i < 1000; i++) spent += (await creditsStore.takeUnlock(server.db, accountId, server.clock.now()))!;
    const d = dispute(pi, 10_000);
    await send(server, event('charge.dispute.funds_withdrawn', d));
    await send(server, event('checkout.session.completed', session(await checkoutFor(accountId))));
    expect(await credits(accountId)).toEqual({ unlocks: 0, queries: 0 });
    await send(server, event('charge.dispute.funds_reinstated', won(d)));
    expect(await credits(accountId)).toEqual({ unlocks: 600, queries: 16_000 });
    expect(await creditValue(accountId)).toBe(110_000_000 - spent);
    expect((await debtShown(accountId)).amount_usd).toBe(0);
    expect((await ledgerReport(server.db)).problems).toEqual([]);
  });

  it('won after a small dispute took the last credit: the credit comes back with the money that was behind it', async () => {
    const { accountId, pi } = await paid();
    for (let i = 0; i < 99; i++) await creditsStore.takeUnlock(server.db, accountId, server.clock.now());
    expect(await creditValue(accountId)).toBe(100_000);
    const d = dispute(pi, 1);
    await send(server, event('charge.dispute.funds_withdrawn', d));
    expect(await credits(accountId)).toEqual({ unlocks: 0, queries: 999 });
    await send(server, event('charge.dispute.funds_reinstated', won(d)));
    expect(await credits(accountId)).toEqual({ unlocks: 1, queries: 1000 });
    expect(await creditValue(accountId)).toBe(100_000);
    expect((await ledgerReport(server.db)).problems).toEqual([]);
  });

  it('a reinstatement racing the purchase that pays its debt: either order ends as if never disputed', async () => {
    const { accountId, pi } = await paid();
    for (let i = 0; i < 30; i++) await creditsStore.takeUnlock(server.db, accountId, server.clock.now());
    const d = dispute(pi, 1000);
    await send(server, event('charge.dispute.funds_withdrawn', d));
    const next = await checkoutFor(accountId);
    const answers = await Promise.all([
      send(server, event('charge.dispute.funds_reinstated', won(d))),
      send(server, event('checkout.session.completed', session(next))),
      send(server, event('charge.dispute.funds_reinstated', won(d))),
    ]);
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(await credits(accountId)).toEqual({ unlocks: 170, queries: 2000 });
    expect(await creditValue(accountId)).toBe(17_000_000);
    expect((await debtShown(accountId)).amount_usd).toBe(0);
    expect((await ledgerReport(server.db)).problems).toEqual([]);
  });

  it('a second dispute of the purchase, won too, does not free the debt the first win freed again', async () => {
    const { accountId, pi } = await paid();
    for (let i = 0; i < 30; i++) await creditsStore.takeUnlock(server.db, accountId, server.clock.now());
    const first = dispute(pi, 1000);
    await send(server, event('charge.dispute.funds_withdrawn', first));
    await send(server, event('checkout.session.completed', session(await checkoutFor(accountId))));
    await send(server, event('charge.dispute.funds_reinstated', won(first)));
    expect(await credits(accountId)).toEqual({ unlocks: 170, queries: 2000 });
    const second = dispute(pi, 1000);
    await send(server, event('charge.dispute.funds_withdrawn', second));
    expect(await credits(accountId)).toEqual({ unlocks: 70, queries: 1000 });
    await send(server, event('charge.dispute.funds_reinstated', won(second)));
    expect(await credits(accountId)).toEqual({ unlocks: 170, queries: 2000 });
    expect(await creditValue(accountId)).toBe(17_000_000);
    expect((await ledgerReport(server.db)).problems).toEqual([]);
  });

  it('a partly refunded pack, disputed, its debt partly paid by another pack, then won: as if only refunded', async () => {
    // Growth ($25, 300 credits), 250 spent, $3 refunded (36 credits, 360 queries), $10 disputed, a Starter paying the
    // debt, the dispute won: the refund stands, 14 Growth and 100 Starter credits held with the money behind them.
    const { accountId, pi } = await paid('growth', 2500);
    let spent = 0;
    for (let i = 0; i < 250; i++) spent += (await creditsStore.takeUnlock(server.db, accountId, server.clock.now()))!;
    await send(server, event('charge.refunded', { payment_intent: pi, amount: 2500, amount_refunded: 300 }));
    const d = dispute(pi, 1000);
    await send(server, event('charge.dispute.funds_withdrawn', d));
    await send(server, event('checkout.session.completed', session(await checkoutFor(accountId))));
    expect((await ledgerReport(server.db)).problems).toEqual([]);
    await send(server, event('charge.dispute.funds_reinstated', won(d)));
    expect(await credits(accountId)).toEqual({ unlocks: 114, queries: 3640 });
    expect(await creditValue(accountId)).toBe(35_000_000 - 3_000_000 - spent);
    expect((await debtShown(accountId)).amount_usd).toBe(0);
    expect((await ledgerReport(server.db)).problems).toEqual([]);
  });

  it('a reinstatement delivered before its dispute, or before the completion, leaves the credits whole', async () => {
    const a = await paid();
    const da = dispute(a.pi, 1000);
    expect((await send(server, event('charge.dispute.funds_reinstated', won(da)))).body).toMatchObject({
      processed: false,
      outcome: 'unknown_dispute',
    });
    await send(server, event('charge.dispute.created', da));
    expect(await credits(a.accountId)).toEqual({ unlocks: 100, queries: 1000 });
    const b = await checkout('starter');
    const db = dispute(`pi_${b.sessionId}`, 1000);
    await send(server, event('charge.dispute.created', db));
    expect((await send(server, event('charge.dispute.funds_reinstated', won(db)))).body).toMatchObject({
      outcome: 'unknown_purchase',
    });
    await send(server, event('checkout.session.completed', session(b.sessionId)));
    expect(await credits(b.accountId)).toEqual({ unlocks: 100, queries: 1000 });
    expect((await ledgerReport(server.db)).problems).toEqual([]);
  });

  it('two disputes of one payment, one won: only the won one comes back; a dispute replayed counts once', async () => {
    const { accountId, pi } = await paid('growth', 2500);
    const a = dispute(pi, 1000);
    const b = dispute(pi, 500);
    await send(server, event('charge.dispute.created', a));
    await send(server, event('charge.dispute.created', a));
    await send(server, event('charge.dispute.created', b));
    // $15 of $25 disputed: 180 of 300 credits taken.
    expect(await credits(accountId)).toEqual({ unlocks: 120, queries: 1200 });
    await send(server, event('charge.dispute.closed', { ...a, status: 'lost' }));
    await send(server, event('charge.dispute.funds_reinstated', won(b)));
    expect(await credits(accountId)).toEqual({ unlocks: 180, queries: 1800 });
    expect(await creditValue(accountId)).toBe(15_000_000);
    expect((await ledgerReport(server.db)).problems).toEqual([]);
  });

  it('a refund plus a won dispute: the refund stands', async () => {
    const a = await paid();
    await send(server, event('charge.refunded', { payment_intent: a.pi, amount: 1000, amount_refunded: 400 }));
    const da = dispute(a.pi, 600);
    await send(server, event('charge.dispute.created', da));
    expect(await credits(a.accountId)).toEqual({ unlocks: 0, queries: 0 });
    await send(server, event('charge.dispute.funds_reinstated', won(da)));
    expect(await credits(a.accountId)).toEqual({ unlocks: 60, queries: 600 });
    expect(await creditValue(a.accountId)).toBe(6_000_000);
    // Fully refunded and disputed: the dispute took nothing, so winning it gives nothing.
    const b = await paid();
    await send(server, event('charge.refunded', { payment_intent: b.pi, amount: 1000, amount_refunded: 1000 }));
    const dbb = dispute(b.pi, 1000);
    await send(server, event('charge.dispute.created', dbb));
    await send(server, event('charge.dispute.funds_reinstated', won(dbb)));
    expect(await credits(b.accountId)).toEqual({ unlocks: 0, queries: 0 });
    // Refunded after the win: taken back again.
    await send(server, event('charge.refunded', { payment_intent: a.pi, amount: 1000, amount_refunded: 1000 }));
    expect(await credits(a.accountId)).toEqual({ unlocks: 0, queries: 0 });
    expect((await ledgerReport(server.db)).problems).toEqual([]);
  });

  it('attack: validly signed reinstatements of disputes never seen, or of another payment, give nothing', async () => {
    const victim = await paid();
    const attacker = await paid();
    for (let i = 0; i < 100; i++) await creditsStore.takeUnlock(server.db, attacker.accountId, server.clock.now());
    const real = dispute(attacker.pi, 1000);
    await send(server, event('charge.dispute.created', real));
    const owed = await debtShown(attacker.accountId);
    expect(owed.unlocks).toBe(100);
    const forged = [
      // A dispute that never existed, on a disputed and an undisputed payment.
      dispute(attacker.pi, 1000, { status: 'won' }),
      dispute(victim.pi, 1000, { status: 'won' }),
      // The real dispute's id on another payment, and on a payment Axle never sold.
      { ...won(real), payment_intent: victim.pi },
      { ...won(real), payment_intent: 'pi_never_sold' },
      { ...won(real), payment_intent: null },
    ];
    for (const f of forged) {
      const r = await send(server, event('charge.dispute.funds_reinstated', f));
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ processed: false });
    }
    expect(await credits(attacker.accountId)).toEqual({ unlocks: 0, queries: 0 });
    expect(await debtShown(attacker.accountId)).toEqual(owed);
    expect(await credits(victim.accountId)).toEqual({ unlocks: 100, queries: 1000 });
    // The real one, with an inflated amount, restores only what the dispute took.
    await send(server, event('charge.dispute.funds_reinstated', { ...won(real), amount: 100_000 }));
    expect(await credits(attacker.accountId)).toEqual({ unlocks: 0, queries: 1000 });
    expect(await debtShown(attacker.accountId)).toEqual({ unlocks: 0, amount_usd: 0, settled_usd: 0 });
    expect((await ledgerReport(server.db)).problems).toEqual([]);
  });

  it('reinstatements racing their replays and the dispute restore once', async () => {
    const { accountId, pi } = await paid();
    for (let i = 0; i < 10; i++) await creditsStore.takeUnlock(server.db, accountId, server.clock.now());
    const d = dispute(pi, 1000);
    const answers = await Promise.all([
      send(server, event('charge.dispute.created', d)),
      ...Array.from({ length: 4 }, () => send(server, event('charge.dispute.funds_reinstated', won(d)))),
    ]);
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(await credits(accountId)).toEqual({ unlocks: 90, queries: 1000 });
    expect(await creditValue(accountId)).toBe(9_000_000);
    expect((await debtShown(accountId)).amount_usd).toBe(0);
    expect((await ledgerReport(server.db)).problems).toEqual([]);
  });

  // An inquiry (retrieval request) withdraws no money: it takes nothing. Escalated to a chargeback, Stripe withdraws
  // the funds (charge.dispute.funds_withdrawn): then it takes back, once per dispute id whichever event says so.
  const inquiry = (pi: string, amount: number) => dispute(pi, amount, { status: 'warning_needs_response' });

  it('fault: an inquiry takes nothing; one that closes never does', async () => {
    const { accountId, pi } = await paid();
    const d = inquiry(pi, 1000);
    const created = await send(server, event('charge.dispute.created', d));
    expect(created.body).toMatchObject({ processed: false, outcome: 'inquiry' });
    await send(server, event('charge.dispute.updated', { ...d, status: 'warning_under_review' }));
    await send(server, event('charge.dispute.closed', { ...d, status: 'warning_closed' }));
    expect(await credits(accountId)).toEqual({ unlocks: 100, queries: 1000 });
    expect(await creditValue(accountId)).toBe(10_000_000);
    expect((await ledgerReport(server.db)).problems).toEqual([]);
  });

  it('an escalated inquiry takes back when the funds are withdrawn, once, and a win gives it back', async () => {
    const { accountId, pi } = await paid();
    const d = inquiry(pi, 1000);
    await send(server, event('charge.dispute.created', d));
    const withdrawn = event('charge.dispute.funds_withdrawn', { ...d, status: 'needs_response' });
    expect((await send(server, withdrawn)).body).toMatchObject({ processed: true, outcome: 'reversed' });
    expect(await credits(accountId)).toEqual({ unlocks: 0, queries: 0 });
    // A replay, and the withdrawal under another event id, take nothing more.
    expect((await send(server, withdrawn)).body).toMatchObject({ already_processed: true });
    await send(server, event('charge.dispute.funds_withdrawn', { ...d, status: 'needs_response' }));
    await send(server, event('charge.dispute.created', { ...d, status: 'needs_response' }));
    expect(await creditValue(accountId)).toBe(0);
    await send(server, event('charge.dispute.funds_reinstated', won(d)));
    expect(await credits(accountId)).toEqual({ unlocks: 100, queries: 1000 });
    expect(await creditValue(accountId)).toBe(10_000_000);
    expect((await ledgerReport(server.db)).problems).toEqual([]);
  });

  it('a chargeback announced by created and funds_withdrawn takes back once, in either order', async () => {
    const a = await paid('growth', 2500);
    const da = dispute(a.pi, 1000);
    await send(server, event('charge.dispute.created', da));
    await send(server, event('charge.dispute.funds_withdrawn', da));
    // $10 of $25: 120 of 300 credits taken.
    expect(await credits(a.accountId)).toEqual({ unlocks: 180, queries: 1800 });
    const b = await paid('growth', 2500);
    const db = inquiry(b.pi, 1000);
    await send(server, event('charge.dispute.funds_withdrawn', { ...db, status: 'needs_response' }));
    await send(server, event('charge.dispute.created', db));
    expect(await credits(b.accountId)).toEqual({ unlocks: 180, queries: 1800 });
    expect((await ledgerReport(server.db)).problems).toEqual([]);
  });

  it('escalation after the credits were spent makes a debt; a reinstatement delivered first leaves all whole', async () => {
    const a = await paid();
    for (let i = 0; i < 30; i++) await creditsStore.takeUnlock(server.db, a.accountId, server.clock.now());
    const d = inquiry(a.pi, 1000);
    await send(server, event('charge.dispute.created', d));
    expect(await credits(a.accountId)).toEqual({ unlocks: 70, queries: 1000 });
    await send(server, event('charge.dispute.funds_withdrawn', { ...d, status: 'needs_response' }));
    expect(await credits(a.accountId)).toEqual({ unlocks: 0, queries: 0 });
    expect(await debtShown(a.accountId)).toEqual({ unlocks: 30, amount_usd: 3, settled_usd: 0 });
    expect((await ledgerReport(server.db)).problems).toEqual([]);
    // Won, its reinstatement delivered before the withdrawal: nothing is ever taken.
    const b = await paid();
    const e = inquiry(b.pi, 1000);
    await send(server, event('charge.dispute.created', e));
    expect((await send(server, event('charge.dispute.funds_reinstated', won(e)))).body).toMatchObject({
      outcome: 'unknown_dispute',
    });
    await send(server, event('charge.dispute.funds_withdrawn', { ...e, status: 'needs_response' }));
    expect(await credits(b.accountId)).toEqual({ unlocks: 100, queries: 1000 });
    expect((await ledgerReport(server.db)).problems).toEqual([]);
  });

  it('a chargeback created and its funds_withdrawn racing, with replays, take back once', async () => {
    const { accountId, pi } = await paid('growth', 2500);
    const d = dispute(pi, 1000);
    const answers = await Promise.all([
      ...Array.from({ length: 3 }, () => send(server, event('charge.dispute.created', d))),
      ...Array.from({ length: 3 }, () => send(server, event('charge.dispute.funds_withdrawn', d))),
    ]);
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(await credits(accountId)).toEqual({ unlocks: 180, queries: 1800 });
    expect(await creditValue(accountId)).toBe(15_000_000);
    expect((await ledgerReport(server.db)).problems).toEqual([]);
  });

  it('attack: a validly signed funds_withdrawn of a dispute never seen takes back (the money left), once', async () => {
    const victim = await paid();
    const buyer = await paid();
    const d = dispute(buyer.pi, 1000);
    const first = await send(server, event('charge.dispute.funds_withdrawn', d));
    expect(first.body).toMatchObject({ processed: true, outcome: 'reversed' });
    await send(server, event('charge.dispute.funds_withdrawn', d));
    expect(await credits(buyer.accountId)).toEqual({ unlocks: 0, queries: 0 });
    // Of a payment Axle never sold, or none: recorded, nothing taken from anyone.
    for (const pi of ['pi_never_sold', null])
      expect(
        (await send(server, event('charge.dispute.funds_withdrawn', { ...d, payment_intent: pi }))).body,
      ).toMatchObject({
        processed: false,
        outcome: 'unknown_purchase',
      });
    expect(await credits(victim.accountId)).toEqual({ unlocks: 100, queries: 1000 });
    expect((await ledgerReport(server.db)).problems).toEqual([]);
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
