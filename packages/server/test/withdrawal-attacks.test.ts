// An outsider trying to withdraw more than was earned, withdraw twice, or be paid twice: two server instances on one
// database (SQLite file or PostgreSQL) racing withdrawals on both rails, amounts that are not money, a processor
// that answers 5xx, and a reconciliation pass working through its list while another instance sends.
import { LIMITS } from '@axle/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../src/clock.js';
import { stripeProcessor } from '../src/payments/card-processor.js';
import { setSuspended } from '../src/services/accounts.js';
import { checkLedger } from '../src/services/ledger-check.js';
import { SIGNATURE_FRESH_MS, withdrawalProof } from '../src/services/withdrawals.js';
import { ledgerStore } from '../src/store/ledger.js';
import { BACKEND, backendEnv } from '../../../test/support/backend.js';
import { post } from '../../../test/support/identity.js';
import { startTestServer, type TestServer } from '../../../test/support/server.js';
import {
  earner,
  getUnlock,
  ledgerCheckWithProcessor,
  newBuyer,
  onboardedEarner,
  openedUnsent,
  payoutsOf,
  seedLearning,
} from './money-helpers.js';
import { type ProcessorStandIn, startProcessorStandIn } from './processor-standin.js';

const SECRET = 'sk_test_axle';
const ADMIN = 'a'.repeat(32);

let standIn: ProcessorStandIn;
/** Two instances on one database and one clock. */
let a: TestServer;
let b: TestServer;
/** What names the shared database to ledger:check besides the data dir (PostgreSQL: its URL). */
let dbEnv: Record<string, string>;

beforeAll(async () => {
  standIn = await startProcessorStandIn(SECRET);
  dbEnv = BACKEND === 'postgres' ? await backendEnv('catalog') : {};
  const env = {
    AXLE_CUSTODIAL_WITHDRAWALS: 'true',
    AXLE_PROCESSOR_SECRET_KEY: SECRET,
    AXLE_PROCESSOR_API_URL: standIn.url,
    AXLE_ADMIN_TOKEN: ADMIN,
    // The tests run the passes they mean to; the instances' own scheduled ones stay out of the way.
    AXLE_PAYOUT_RECONCILE_MS: '3600000',
    ...dbEnv,
  };
  const clock = new ManualClock();
  a = await startTestServer(env, { clock });
  b = await startTestServer(env, { clock, dataDir: a.dataDir });
});
afterAll(async () => {
  await b?.stop({ keepData: true });
  await a?.stop();
  await standIn?.close();
});

const both = () => [a, b];
const json = async (r: Response) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> });
/** Refused as a second withdrawal: the first in flight, or paid and the rest of the balance too little. */
const refused = (r: { status: number; body: Record<string, unknown> }) =>
  (r.status === 409 && r.body.code === 'WITHDRAWAL_IN_FLIGHT') ||
  (r.status === 400 && r.body.error === 'insufficient balance');
const transfersTo = (destination: string) => standIn.transfers.filter((t) => t.destination === destination);
const books = async () => {
  expect(await checkLedger(a.db)).toEqual([]);
  expect(await ledgerCheckWithProcessor(a.dataDir, standIn, dbEnv)).toMatchObject({ code: 0 });
};

describe('withdrawals racing over two instances on one database', () => {
  it('card withdrawals of $5 from $7 sent to both at once: one is paid, every other is refused', async () => {
    const e = await onboardedEarner(a, standIn, 10_000_000);
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        post(both()[i % 2]!, '/withdraw/processor', { amount_usd: 5 }, { 'x-api-key': e.key }).then(json),
      ),
    );
    const paid = answers.filter((r) => r.status === 200);
    expect(paid).toEqual([{ status: 200, body: expect.objectContaining({ status: 'confirmed', amount: 5 }) }]);
    // The rest found it in flight, or found $2 left once it was paid.
    for (const r of answers.filter((x) => x.status !== 200)) expect(r).toSatisfy(refused);
    expect(transfersTo(e.destination).map((t) => t.amount)).toEqual([500]);
    expect(await ledgerStore.balance(a.db, e.accountId)).toMatchObject({ pending_micro: 2_000_000 });
    await books();
  });

  it('wallet withdrawals under distinct signatures sent to both at once pay the balance once', async () => {
    const e = await earner(a, 10_000_000);
    const ts = a.clock.now();
    const answers = await Promise.all(
      Array.from({ length: 8 }, async (_, i) => {
        const timestamp = ts - i;
        const signature = await e.wallet.signTypedData(withdrawalProof(e.wallet.address, timestamp));
        return json(await post(both()[i % 2]!, '/withdraw', { wallet: e.wallet.address, signature, timestamp }));
      }),
    );
    expect(answers.filter((r) => r.status === 200)).toEqual([
      { status: 200, body: expect.objectContaining({ status: 'confirmed', amount: 7 }) },
    ]);
    for (const r of answers.filter((x) => x.status !== 200)) expect(r).toSatisfy(refused);
    expect(await ledgerStore.balance(a.db, e.accountId)).toMatchObject({
      pending_micro: 0,
      withdrawn_micro: 7_000_000,
    });
    await books();
  });

  it('one Idempotency-Key sent to both at once opens one settlement, and every answer names it', async () => {
    const e = await onboardedEarner(a, standIn, 10_000_000);
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        post(
          both()[i % 2]!,
          '/withdraw/processor',
          { amount_usd: 1 },
          { 'x-api-key': e.key, 'idempotency-key': 'same-request' },
        ).then(json),
      ),
    );
    const [first] = await ledgerStore.settlementsFor(a.db, e.accountId, 10);
    for (const r of answers) {
      expect([200, 202]).toContain(r.status);
      expect(r.body).toMatchObject({ settlement_id: first!.id, amount: 1 });
    }
    expect(transfersTo(e.destination).map((t) => t.amount)).toEqual([100]);
    expect(await ledgerStore.balance(a.db, e.accountId)).toMatchObject({ pending_micro: 6_000_000 });
    await books();
  });

  it('amounts that are not money are 400 with a JSON error, and nothing is opened or sent', async () => {
    const e = await onboardedEarner(a, standIn, 10_000_000);
    const amounts: unknown[] = [
      0,
      -0,
      -1,
      -0.5,
      1e-9,
      0.001,
      0.499,
      7.01,
      1e308,
      9007199254740991,
      '1',
      '5',
      null,
      true,
      [1],
      {},
    ];
    for (const amount_usd of amounts) {
      const r = await json(await post(a, '/withdraw/processor', { amount_usd }, { 'x-api-key': e.key }));
      expect([JSON.stringify(amount_usd), r.status, typeof r.body.error]).toEqual([
        JSON.stringify(amount_usd),
        400,
        'string',
      ]);
    }
    const missing = await post(a, '/withdraw/processor', {}, { 'x-api-key': e.key });
    expect(missing.status).toBe(400);
    expect(await ledgerStore.settlementsFor(a.db, e.accountId, 10)).toEqual([]);
    expect(transfersTo(e.destination)).toEqual([]);
    expect(await ledgerStore.balance(a.db, e.accountId)).toMatchObject({ pending_micro: 7_000_000 });
    await books();
  });
});

describe('card withdrawal requests per account', () => {
  it('are limited in the database before the processor is asked: a burst over both instances is 429, another account is not held back', async () => {
    const { perMinute } = LIMITS.accountWrites.cardWithdrawal;
    const e = await onboardedEarner(a, standIn, 10_000_000);
    const asked = () =>
      standIn.requests.filter((r) => r.method === 'GET' && r.path === `/v1/accounts/${e.destination}`).length;
    const before = asked();
    // Each of these would ask the processor whether the payout account is onboarded, then find $7 too little.
    const burst = await Promise.all(
      Array.from({ length: perMinute + 5 }, (_, i) =>
        post(both()[i % 2]!, '/withdraw/processor', { amount_usd: 50 }, { 'x-api-key': e.key }),
      ),
    );
    expect(burst.filter((r) => r.status === 400)).toHaveLength(perMinute);
    const limited = burst.filter((r) => r.status === 429);
    expect(limited).toHaveLength(5);
    expect(limited[0]!.headers.get('retry-after')).toBe('60');
    expect(await limited[0]!.json()).toMatchObject({ code: 'rate_limited' });
    expect(asked() - before).toBe(perMinute);
    // Refused before the processor would be asked, a request spends nothing: still its own 400.
    const below = await post(a, '/withdraw/processor', { amount_usd: 0.1 }, { 'x-api-key': e.key });
    expect(await below.json()).toMatchObject({ error: expect.stringMatching(/below minimum/) });
    const other = await onboardedEarner(a, standIn, 10_000_000);
    expect((await post(b, '/withdraw/processor', { amount_usd: 1 }, { 'x-api-key': other.key })).status).toBe(200);
    a.clock.advance(60_000);
    expect((await post(b, '/withdraw/processor', { amount_usd: 1 }, { 'x-api-key': e.key })).status).toBe(200);
    await books();
  });
});

describe('a processor that answers 5xx', () => {
  it("503 before acting, then success on the SDK's retry under the same key: paid once", async () => {
    const e = await onboardedEarner(a, standIn, 10_000_000);
    standIn.setTransferMode('unavailable', e.destination);
    const r = await json(await post(a, '/withdraw/processor', { amount_usd: 1 }, { 'x-api-key': e.key }));
    expect(r).toMatchObject({ status: 200, body: { status: 'confirmed', amount: 1 } });
    const posts = standIn.requests.filter(
      (x) => x.path === '/v1/transfers' && x.form.get('destination') === e.destination,
    );
    expect(posts.map((x) => x.idempotencyKey)).toEqual([r.body.settlement_id, r.body.settlement_id]);
    expect(transfersTo(e.destination).map((t) => t.amount)).toEqual([100]);
    standIn.setTransferMode('normal');
    await books();
  });

  it("502 after acting, then the replay on the SDK's retry: paid once", async () => {
    const e = await onboardedEarner(a, standIn, 10_000_000);
    standIn.setTransferMode('lost', e.destination);
    const r = await json(await post(a, '/withdraw/processor', { amount_usd: 1 }, { 'x-api-key': e.key }));
    expect(r).toMatchObject({
      status: 200,
      body: { status: 'confirmed', payout_id: transfersTo(e.destination)[0]!.id },
    });
    expect(transfersTo(e.destination)).toHaveLength(1);
    standIn.setTransferMode('normal');
    await books();
  });

  it('without retries a 5xx is an unknown outcome, never a failure: the next pass pays it exactly once', async () => {
    const [lost, unavailable] = [
      await onboardedEarner(a, standIn, 10_000_000),
      await onboardedEarner(a, standIn, 10_000_000),
    ];
    const opened = [await openedUnsent(a, lost), await openedUnsent(a, unavailable)];
    standIn.setTransferMode('lost', lost.destination);
    standIn.setTransferMode('unavailable', unavailable.destination);
    const payouts = payoutsOf(a, {
      processor: await stripeProcessor({ secretKey: SECRET, apiUrl: standIn.url, maxNetworkRetries: 0 }),
    });
    expect(await payouts.runPass()).toMatchObject({ checked: 2, unresolved: 2, failed: 0 });
    for (const s of opened)
      expect(await ledgerStore.settlement(a.db, s.id)).toMatchObject({ status: 'processing_timeout' });
    // The lost answer's transfer is found; the unavailable one is sent again under its key.
    expect(await payouts.runPass()).toMatchObject({ checked: 2, confirmed: 2 });
    for (const e of [lost, unavailable]) {
      expect(transfersTo(e.destination).map((t) => t.amount)).toEqual([100]);
      expect(await ledgerStore.balance(a.db, e.accountId)).toMatchObject({ pending_micro: 6_000_000 });
    }
    standIn.setTransferMode('normal');
    await books();
  });
});

describe('a reconciliation pass and a send on another instance', () => {
  it('a pass does not fail a card payout from the list it read at its start: a send begun since may still land', async () => {
    const [blocker, victim] = [
      await onboardedEarner(a, standIn, 10_000_000),
      await onboardedEarner(a, standIn, 10_000_000),
    ];
    // Two withdrawals whose requests died before sending; the first is older, so a pass reaches it first.
    const first = await openedUnsent(a, blocker);
    a.clock.advance(1);
    const s = await openedUnsent(a, victim);
    const sendWindowMs = 60_000;
    a.clock.advance(sendWindowMs);
    // Instance A's pass: the processor never answers the first send, so the pass waits on it for its timeout.
    standIn.setTransferMode('hang', blocker.destination);
    const stuck = standIn.nextRequest(
      (p, _q, f) => p === '/v1/transfers' && f.get('destination') === blocker.destination,
    );
    const pass = payoutsOf(a, {
      processor: await stripeProcessor({
        secretKey: SECRET,
        apiUrl: standIn.url,
        timeoutMs: 500,
        maxNetworkRetries: 0,
      }),
      sendWindowMs,
    }).runPass();
    await stuck;
    // Meanwhile an operator reconciles the second on instance B: it is sent now, and the processor acts on it late.
    standIn.setTransferMode('late', victim.destination);
    const reached = standIn.nextRequest(
      (p, _q, f) => p === '/v1/transfers' && f.get('destination') === victim.destination,
    );
    const operator = fetch(`${b.url}/admin/settlements/${s.id}/reconcile`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    await reached;
    // The account is suspended while that send is under way; the pass then reaches the second settlement.
    await a.db.tx((q) => setSuspended(q, victim.accountId, true, a.clock.now()));
    expect(await pass).toMatchObject({ checked: 2, failed: 0 });
    const landed = standIn.nextTransfer();
    standIn.release();
    await landed;
    expect(await (await operator).json()).toMatchObject({ id: s.id, status: 'confirmed' });
    expect(transfersTo(victim.destination).map((t) => t.amount)).toEqual([100]);
    // Paid once, and not given back as well.
    expect(await ledgerStore.balance(a.db, victim.accountId)).toMatchObject({ pending_micro: 6_000_000 });
    standIn.setTransferMode('normal');
    // The first, never answered, is found with no transfer and sent again.
    await a.db.tx((q) => setSuspended(q, victim.accountId, false, a.clock.now()));
    const resent = await fetch(`${a.url}/admin/settlements/${first.id}/reconcile`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    expect(await resent.json()).toMatchObject({ status: 'confirmed' });
    expect(transfersTo(blocker.destination).map((t) => t.amount)).toEqual([100]);
    await books();
  });
});

describe('a reconciliation pass on an instance whose clock runs ahead', () => {
  // Found by reconciling, on an instance whose clock ran 2 s ahead, a card payout another instance was still sending
  // to a suspended account: by its own clock the send's window had closed, so it failed the payout and gave the amount
  // back, and the transfer landed after: paid out and refunded.
  it('does not fail a card payout whose send, started on another instance, may still land', async () => {
    const e = await onboardedEarner(a, standIn, 10_000_000);
    const s = await openedUnsent(a, e);
    const sendWindowMs = 60_000;
    const [clockA, clockB] = [new ManualClock(a.clock.now()), new ManualClock(a.clock.now() + 2_000)];
    const processor = await stripeProcessor({
      secretKey: SECRET,
      apiUrl: standIn.url,
      timeoutMs: 10_000,
      maxNetworkRetries: 0,
    });
    // Instance A sends it; the processor acts on the request later than A looks.
    standIn.setTransferMode('late', e.destination);
    const reached = standIn.nextRequest((p, _q, f) => p === '/v1/transfers' && f.get('destination') === e.destination);
    const sending = payoutsOf(a, { clock: clockA, processor, sendWindowMs }).reconcile(s.id);
    await reached;
    // The account is suspended while the send is under way; by A's clock it may still land for another second.
    await a.db.tx((q) => setSuspended(q, e.accountId, true, clockA.now()));
    clockA.advance(sendWindowMs - 1_000);
    clockB.advance(sendWindowMs - 1_000);
    // Instance B, 2 s ahead, reconciles it: no transfer at the processor yet.
    const seen = await payoutsOf(a, { clock: clockB, processor, sendWindowMs }).reconcile(s.id);
    expect(seen.status).not.toBe('failed');
    const landed = standIn.nextTransfer();
    standIn.release();
    await landed;
    expect(await sending).toMatchObject({ id: s.id, status: 'confirmed' });
    expect(transfersTo(e.destination).map((t) => t.amount)).toEqual([100]);
    // Paid once, and not given back as well.
    expect(await ledgerStore.balance(a.db, e.accountId)).toMatchObject({ pending_micro: 6_000_000 });
    standIn.setTransferMode('normal');
    await a.db.tx((q) => setSuspended(q, e.accountId, false, a.clock.now()));
    await books();
  });
});

/** A clock that, while ticking, moves 1 ms on each read: time passes between a request's steps, as it does. */
class TickingClock extends ManualClock {
  ticking = false;
  override now(): number {
    const t = super.now();
    if (this.ticking) this.advance(1);
    return t;
  }
}

describe('a wallet withdrawal signature replayed as its 5 minutes close', () => {
  /** A wallet withdrawal sent from client address 198.51.100.`i` (each its own, under the per-address limit). */
  const withdraw = async (
    server: TestServer,
    wallet: { address: string },
    signature: string,
    timestamp: number,
    i: number,
  ) =>
    json(
      await post(
        server,
        '/withdraw',
        { wallet: wallet.address, signature, timestamp },
        { 'x-forwarded-for': `198.51.100.${i}` },
      ),
    );
  it('is still a replay when the window closes between the freshness check and the claim: nothing moves', async () => {
    const clock = new TickingClock();
    // Each send from another address, so the per-address limit does not end the scan early.
    const server = await startTestServer({ AXLE_CUSTODIAL_WITHDRAWALS: 'true', AXLE_TRUST_PROXY: 'true' }, { clock });
    try {
      const e = await earner(server, 1_000_000);
      const ts = clock.now();
      const signature = await e.wallet.signTypedData(withdrawalProof(e.wallet.address, ts));
      const send = (i: number) => withdraw(server, e.wallet, signature, ts, i);
      expect(await send(0)).toMatchObject({ status: 200, body: { amount: 0.7 } });
      // Earned since: what a replay would take.
      const l = await seedLearning(server, { contributorAccountId: e.accountId, currentPriceMicro: 1_000_000 });
      const buyer = await newBuyer(server, { credits: 1, creditValueMicro: 1_000_000 });
      expect((await getUnlock(server, l.id, { 'x-api-key': buyer.key })).status).toBe(200);
      // The replay arrives d ms before the signature's window closes, for each d until it is inside it throughout:
      // at some d the window closes after the freshness check passed and before the signature is claimed.
      const answers: Array<{ status: number; body: Record<string, unknown> }> = [];
      for (let d = 0; d <= 40; d++) {
        clock.set(ts + SIGNATURE_FRESH_MS - d);
        clock.ticking = true;
        answers.push(await send(d + 1));
        clock.ticking = false;
      }
      expect(answers.filter((r) => r.status === 200)).toEqual([]);
      for (const r of answers)
        expect(
          (r.status === 400 && /within 5 minutes/.test(String(r.body.error))) ||
            (r.status === 409 && r.body.code === 'WITHDRAWAL_SIGNATURE_USED'),
        ).toBe(true);
      expect(answers.at(-1)).toMatchObject({ status: 409 });
      expect(await ledgerStore.balance(server.db, e.accountId)).toMatchObject({
        pending_micro: 700_000,
        withdrawn_micro: 700_000,
      });
      expect(await checkLedger(server.db)).toEqual([]);
    } finally {
      await server.stop();
    }
  });

  it('is still a replay when an instance whose clock runs ahead pruned its first use', async () => {
    const clock = new ManualClock();
    const server = await startTestServer({ AXLE_CUSTODIAL_WITHDRAWALS: 'true', AXLE_TRUST_PROXY: 'true' }, { clock });
    try {
      const e = await earner(server, 1_000_000);
      const ts = clock.now();
      const signature = await e.wallet.signTypedData(withdrawalProof(e.wallet.address, ts));
      expect(await withdraw(server, e.wallet, signature, ts, 1)).toMatchObject({ status: 200 });
      const l = await seedLearning(server, { contributorAccountId: e.accountId, currentPriceMicro: 1_000_000 });
      const buyer = await newBuyer(server, { credits: 1, creditValueMicro: 1_000_000 });
      expect((await getUnlock(server, l.id, { 'x-api-key': buyer.key })).status).toBe(200);

      // Another instance, its clock 2 s ahead, claims another account's withdrawal as the window closes...
      clock.set(ts + SIGNATURE_FRESH_MS + 2_000);
      const other = await earner(server, 1_000_000);
      const otherTs = clock.now();
      const otherSignature = await other.wallet.signTypedData(withdrawalProof(other.wallet.address, otherTs));
      expect(await withdraw(server, other.wallet, otherSignature, otherTs, 2)).toMatchObject({ status: 200 });
      // ...and this instance, 2 s behind it, still holds the first signature fresh.
      clock.set(ts + SIGNATURE_FRESH_MS - 1_000);
      expect(await withdraw(server, e.wallet, signature, ts, 3)).toMatchObject({
        status: 409,
        body: { code: 'WITHDRAWAL_SIGNATURE_USED' },
      });
      expect(await ledgerStore.balance(server.db, e.accountId)).toMatchObject({
        pending_micro: 700_000,
        withdrawn_micro: 700_000,
      });
      expect(await checkLedger(server.db)).toEqual([]);
    } finally {
      await server.stop();
    }
  });
});
