import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CURRENT_TOS_VERSION, ERROR_CODES, LIMITS } from '@axle/sdk';
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../src/clock.js';
import { createLogger } from '../src/logger.js';
import { createRateLimiter } from '../src/services/rate-limit.js';
import { longestTransferMs, stripeProcessor } from '../src/payments/card-processor.js';
import type { PayoutSender } from '../src/payments/payout-sender.js';
import { type SanctionsScreen, sanctionsScreen } from '../src/payments/sanctions.js';
import { DomainError } from '../src/domain/errors.js';
import { findOrCreateAccount, setSuspended } from '../src/services/accounts.js';
import { checkLedger } from '../src/services/ledger-check.js';
import { payeeOf, recordUnlock } from '../src/services/ledger.js';
import { createPayouts } from '../src/services/payouts.js';
import { createWithdrawalsService, withdrawalProof } from '../src/services/withdrawals.js';
import { Database } from '../src/store/db.js';
import { ledgerStore } from '../src/store/ledger.js';
import { openSettlement } from '../src/services/ledger.js';
import { migrate } from '../src/store/migrate.js';
import { termsStore } from '../src/store/terms.js';
import { walletsStore } from '../src/store/wallets.js';
import { backendEnv, prepareDataDir } from '../../../test/support/backend.js';
import { startTestServer, type TestServer } from '../../../test/support/server.js';
import { post } from '../../../test/support/identity.js';
import { boughtCredits, earner, newBuyer, onboardedEarner, openedUnsent, payoutsOf } from './money-helpers.js';
import { startProcessorStandIn } from './processor-standin.js';

const SECRET = 'sk_test_axle';
const ADMIN = 'a'.repeat(32);

/** POST /withdraw claiming `address` with `signer`'s withdrawal proof at `timestamp`. */
const withdraw = async (server: TestServer, signer: PrivateKeyAccount, timestamp: number, address = signer.address) =>
  post(server, '/withdraw', {
    wallet: address,
    signature: await signer.signTypedData(withdrawalProof(signer.address, timestamp)),
    timestamp,
  });

describe('withdrawals paused (the default)', () => {
  it('both rails answer 503 withdraw_paused_noncustodial_migration', async () => {
    const server = await startTestServer();
    try {
      const e = await earner(server, 100_000);
      const ts = server.clock.now();
      const res = await withdraw(server, e.wallet, ts);
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ code: 'withdraw_paused_noncustodial_migration' });
      // The pause answers before the body is judged (issue 21 item 4): no field-by-field validation error.
      for (const body of [{}, { wallet: e.wallet.address }, { signature: '0x12' }]) {
        const bare = await post(server, '/withdraw', body);
        expect(bare.status).toBe(503);
        expect(await bare.json()).toMatchObject({ code: 'withdraw_paused_noncustodial_migration' });
      }
      const typed = await post(server, '/withdraw/typed-data', { wallet: e.wallet.address });
      expect(typed.status).toBe(503);
      const card = await post(server, '/withdraw/processor', { amount_usd: 1 }, { 'x-api-key': e.key });
      expect(card.status).toBe(503);
      expect(await card.json()).toMatchObject({ code: 'withdraw_paused_noncustodial_migration' });
    } finally {
      await server.stop();
    }
  });
});

describe('withdrawals enabled', () => {
  let server: TestServer;
  let standIn: Awaited<ReturnType<typeof startProcessorStandIn>>;
  beforeAll(async () => {
    standIn = await startProcessorStandIn(SECRET);
    server = await startTestServer({
      AXLE_CUSTODIAL_WITHDRAWALS: 'true',
      AXLE_PROCESSOR_SECRET_KEY: SECRET,
      AXLE_PROCESSOR_API_URL: standIn.url,
    });
  });
  afterAll(async () => {
    await server.stop();
    await standIn.close();
  });

  it('POST /withdraw pays the whole pending balance to the signing wallet and records a settlement', async () => {
    const e = await earner(server, 1_000_000);
    const ts = server.clock.now();
    const res = await withdraw(server, e.wallet, ts);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { settlement_id: string; amount: number; status: string };
    expect(body).toMatchObject({ amount: 0.7, status: 'confirmed', settlement_id: expect.stringMatching(/^set_/) });
    const s = (await (await fetch(`${server.url}/contributor/${e.wallet.address}/settlements`)).json()) as {
      pending_balance: number;
      total_withdrawn: number;
      settlements: unknown[];
    };
    expect(s).toMatchObject({
      pending_balance: 0,
      total_withdrawn: 0.7,
      settlements: [expect.objectContaining({ id: body.settlement_id, rail: 'wallet', status: 'confirmed' })],
    });
    // The same signature again is a replay: 409, and nothing moves.
    const replay = await withdraw(server, e.wallet, ts);
    expect(replay.status).toBe(409);
    expect(await replay.json()).toMatchObject({
      code: 'WITHDRAWAL_SIGNATURE_USED',
      error: expect.stringMatching(/already used/),
    });
    const again = await withdraw(server, e.wallet, ts + 1);
    expect(((await again.json()) as { error: string }).error).toBe('insufficient balance');
    // A refused withdrawal leaves its signature unspent: a refusal again, not a replay.
    const retried = await withdraw(server, e.wallet, ts + 1);
    expect(((await retried.json()) as { error: string }).error).toBe('insufficient balance');
    const settlements = await server.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM settlements');
    expect(settlements!.n).toBe(1);
    expect(await checkLedger(server.db)).toEqual([]);
  });

  it('refuses a stale timestamp, a forged signature, an unlinked wallet and an account without the terms', async () => {
    const e = await earner(server, 100_000);
    const stale = server.clock.now() - 6 * 60_000;
    expect((await withdraw(server, e.wallet, stale)).status).toBe(400);
    const ts = server.clock.now();
    const forger = privateKeyToAccount(generatePrivateKey());
    expect((await withdraw(server, forger, ts, e.wallet.address)).status).toBe(403);
    expect((await withdraw(server, forger, ts)).status).toBe(404);
    const wallet = privateKeyToAccount(generatePrivateKey());
    const noTerms = await newBuyer(server);
    await walletsStore.link(server.db, noTerms.accountId, wallet.address);
    const res = await withdraw(server, wallet, ts);
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ code: 'TERMS_NOT_ACCEPTED' });
  });

  it('POST /withdraw/processor: payout account by hosted onboarding, minimum, balance, then the payout', async () => {
    const e = await earner(server, 2_000_000);
    const pay = (amount_usd: number) => post(server, '/withdraw/processor', { amount_usd }, { 'x-api-key': e.key });
    const none = await pay(1);
    expect(((await none.json()) as { error: string }).error).toMatch(/no payout account linked/);
    const onboard = await post(server, '/account/payout-account', {}, { 'x-api-key': e.key });
    const link = (await onboard.json()) as { url: string; payout_account_id: string; onboarding_complete: boolean };
    expect(link).toMatchObject({ url: `${standIn.url}/onboard/${link.payout_account_id}`, onboarding_complete: false });
    expect(((await (await pay(1)).json()) as { error: string }).error).toBe('onboarding incomplete');
    standIn.completeOnboarding(link.payout_account_id);
    expect(((await (await pay(0.49)).json()) as { error: string }).error).toMatch(/below minimum/);
    expect(((await (await pay(0.505)).json()) as { error: string }).error).toMatch(/invalid amount/);
    expect(((await (await pay(5)).json()) as { error: string }).error).toBe('insufficient balance');
    const ok = await pay(1.25);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({
      payout_id: expect.stringMatching(/^tr_/),
      amount: 1.25,
      status: 'confirmed',
    });
    const transfer = standIn.requests.find((r) => r.path === '/v1/transfers')!.form;
    expect([transfer.get('amount'), transfer.get('destination')]).toEqual(['125', link.payout_account_id]);
    expect((await ledgerStore.balance(server.db, e.accountId)).pending_micro).toBe(150_000);
    expect(await checkLedger(server.db)).toEqual([]);
  });

  it('two POST /account/payout-account at once link one payout account: both answers name the one withdrawals pay', async () => {
    const e = await earner(server, 2_000_000);
    const links = (await Promise.all(
      [1, 2].map(async () => (await post(server, '/account/payout-account', {}, { 'x-api-key': e.key })).json()),
    )) as Array<{ payout_account_id: string; url: string }>;
    const linked = await walletsStore.payoutAccount(server.db, e.accountId);
    // Whichever link the contributor follows is the account their withdrawals go to.
    expect(links.map((l) => l.payout_account_id)).toEqual([linked, linked]);
    standIn.completeOnboarding(links[0]!.payout_account_id);
    const paid = await post(server, '/withdraw/processor', { amount_usd: 1 }, { 'x-api-key': e.key });
    expect(await paid.json()).toMatchObject({ status: 'confirmed' });
  });

  it('POST /withdraw/processor without a configured processor is 503 payout provider not configured', async () => {
    const bare = await startTestServer({ AXLE_CUSTODIAL_WITHDRAWALS: 'true' });
    try {
      const e = await earner(bare, 1_000_000);
      const res = await post(bare, '/withdraw/processor', { amount_usd: 0.5 }, { 'x-api-key': e.key });
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ error: 'payout provider not configured' });
    } finally {
      await bare.stop();
    }
  });

  it('admin: GET /admin/settlements (read scope) and POST /admin/settle 501', async () => {
    const admin = await startTestServer({ AXLE_ADMIN_TOKEN: 'a'.repeat(32), AXLE_ADMIN_READ_TOKEN: 'r'.repeat(32) });
    try {
      await earner(admin, 100_000);
      const res = await fetch(`${admin.url}/admin/settlements`, {
        headers: { authorization: `Bearer ${'r'.repeat(32)}` },
      });
      expect(await res.json()).toEqual({
        platform_wallet: '0x000000000000000000000000000000000000a11e',
        eth_balance: 'unknown',
        total_platform_earnings: 0.03,
      });
      expect(
        (
          await fetch(`${admin.url}/admin/settle`, {
            method: 'POST',
            headers: { authorization: `Bearer ${'a'.repeat(32)}` },
          })
        ).status,
      ).toBe(501);
    } finally {
      await admin.stop();
    }
  });
});

describe('POST /withdraw per client address', () => {
  it('takes 10 a minute from one address before verifying or screening; past it 429, nothing moves', async () => {
    const server = await startTestServer({ AXLE_CUSTODIAL_WITHDRAWALS: 'true' });
    try {
      const { perMinute } = LIMITS.perAddress.walletWithdraw;
      const e = await earner(server, 1_000_000);
      const ts = server.clock.now();
      const forger = privateKeyToAccount(generatePrivateKey());
      const forged = [];
      for (let i = 0; i < perMinute; i++) forged.push((await withdraw(server, forger, ts, e.wallet.address)).status);
      expect(forged).toEqual(Array(perMinute).fill(403));
      const refused = await withdraw(server, e.wallet, ts);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await refused.json()).toMatchObject({ code: 'rate_limited' });
      expect((await ledgerStore.balance(server.db, e.accountId)).pending_micro).toBe(700_000);
      // The refused request spent nothing: its signature pays once the minute is over.
      server.clock.advance(60_000);
      const paid = await withdraw(server, e.wallet, ts);
      expect(paid.status).toBe(200);
      expect(await paid.json()).toMatchObject({ amount: 0.7, status: 'confirmed' });
      expect(await checkLedger(server.db)).toEqual([]);
    } finally {
      await server.stop();
    }
  });
});

describe('the wallet rail with a payout sender that takes its time', () => {
  let dir: string;
  let db: Database;
  const clock = new ManualClock(Date.now());
  const wallet = privateKeyToAccount(generatePrivateKey());
  let accountId: string;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'axle-withdraw-'));
    db = await Database.open(path.join(dir, 'axle.db'));
    await migrate(db);
    accountId = (await db.tx((q) => findOrCreateAccount(q, 'slow@example.com', clock.now()))).id;
    await termsStore.insert(db, {
      account_id: accountId,
      version: CURRENT_TOS_VERSION,
      accepted_at: 0,
      via: 'jwt',
      audit_ref: 'aud_t',
    });
    await walletsStore.link(db, accountId, wallet.address);
    await db.tx(async (q) => {
      const l = { contributorAccountId: accountId, contributorWallet: null };
      await boughtCredits(q, 'acc_b', 1_000_000);
      await recordUnlock(q, {
        learningId: 'lrn_x',
        buyer: 'acc_b',
        path: 'key',
        paidMicro: 1_000_000,
        discovery: false,
        selfDealing: false,
        accrualCapped: false,
        payee: await payeeOf(q, l),
        now: clock.now(),
      });
    });
  });
  afterAll(async () => {
    await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const service = (sender: PayoutSender, confirmTimeoutMs = 1000) =>
    createWithdrawalsService({
      db,
      clock,
      logger: createLogger('silent'),
      baseUrl: () => 'http://127.0.0.1:1',
      termsUrl: () => 'http://127.0.0.1:1/terms',
      enabled: true,
      sanctions: sanctionsScreen(path.join(dir, 'none.txt')),
      payouts: createPayouts({ db, clock, logger: createLogger('silent'), sender }),
      rateLimiter: createRateLimiter({ db, clock }),
      confirmTimeoutMs,
    });

  it('two concurrent withdrawals: one proceeds, the other gets 409 WITHDRAWAL_IN_FLIGHT', async () => {
    fs.writeFileSync(path.join(dir, 'none.txt'), '');
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const s = service(
      {
        send: async () => {
          await held;
          return { txHash: '0xfeed' };
        },
      },
      60_000,
    );
    clock.advance(1000);
    const ts = clock.now();
    // Two distinct signatures: the second is no replay, so the open settlement is what refuses it.
    const attempt = async (t: number) => {
      const signature = await wallet.signTypedData(withdrawalProof(wallet.address, t));
      return s.viaWallet({ wallet: wallet.address, signature, timestamp: t }).then(
        (ok) => ({ ok }),
        (err) => ({ err }),
      );
    };
    const both = [attempt(ts), attempt(ts - 1)];
    // Whichever opened its settlement second is refused at once; the other waits for its payout.
    const refused = await Promise.race(both);
    expect(refused).toMatchObject({
      err: {
        code: 'WITHDRAWAL_IN_FLIGHT',
        details: { settlement_status: 'pending', poll_url: expect.stringContaining('/settlements') },
      },
    });
    release();
    const results = await Promise.all(both);
    expect(results.filter((r) => 'ok' in r)).toEqual([
      { ok: expect.objectContaining({ status: 'confirmed', amount: 0.7, tx_hash: '0xfeed' }) },
    ]);
    expect(await checkLedger(db)).toEqual([]);
  });

  it('one signature sent twice at once pays out once; the other send is 409 WITHDRAWAL_SIGNATURE_USED', async () => {
    await earn('acc_d', 'lrn_z', 1_000_000);
    let sends = 0;
    const s = service({ send: async () => ({ txHash: `0xbeef${++sends}` }) });
    clock.advance(1000);
    const ts = clock.now();
    const signature = await wallet.signTypedData(withdrawalProof(wallet.address, ts));
    const settlementsBefore = (await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM settlements'))!.n;
    const send = () =>
      s.viaWallet({ wallet: wallet.address, signature, timestamp: ts }).then(
        (ok) => ({ ok }),
        (err) => ({ err }),
      );
    const results = await Promise.all([send(), send()]);
    expect(results.filter((r) => 'ok' in r)).toEqual([
      { ok: expect.objectContaining({ status: 'confirmed', amount: 0.7 }) },
    ]);
    expect(results.filter((r) => 'err' in r)).toEqual([
      { err: expect.objectContaining({ code: 'WITHDRAWAL_SIGNATURE_USED' }) },
    ]);
    expect(sends).toBe(1);
    expect((await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM settlements'))!.n).toBe(settlementsBefore + 1);
    expect((await ledgerStore.balance(db, accountId)).pending_micro).toBe(0);
    expect(await checkLedger(db)).toEqual([]);
  });

  /** The account earns from a key unlock of `learningId` by `buyer`, paid with credits bought for `micro`. */
  const earn = (buyer: string, learningId: string, micro: number) =>
    db.tx(async (q) => {
      await boughtCredits(q, buyer, micro);
      await recordUnlock(q, {
        learningId,
        buyer,
        path: 'key',
        paidMicro: micro,
        discovery: false,
        selfDealing: false,
        accrualCapped: false,
        payee: { holder: accountId, held: false },
        now: clock.now(),
      });
    });

  it('202 processing_timeout with a poll_url when confirmation times out; the balance stays debited', async () => {
    await earn('acc_c', 'lrn_y', 100_000);
    let confirm!: (v: { txHash: string }) => void;
    const s = service({ send: () => new Promise((r) => (confirm = r)) }, 5);
    clock.advance(1000);
    const ts = clock.now();
    const r = await s.viaWallet({
      wallet: wallet.address,
      signature: await wallet.signTypedData(withdrawalProof(wallet.address, ts)),
      timestamp: ts,
    });
    expect(r).toMatchObject({
      status: 'processing_timeout',
      poll_url: expect.stringContaining(`/contributor/${wallet.address.toLowerCase()}/settlements`),
    });
    expect((await ledgerStore.balance(db, accountId)).pending_micro).toBe(0);
    expect((await ledgerStore.inFlight(db, accountId))?.status).toBe('processing_timeout');
    confirm({ txHash: '0xlate' });
    await new Promise((r) => setImmediate(r));
    await db.tx(async () => undefined);
    expect(await ledgerStore.inFlight(db, accountId)).toBeUndefined();
    expect(await checkLedger(db)).toEqual([]);
  });
  it('a wallet payout whose outcome is unknown is not sent again by reconciliation once the wallet is listed', async () => {
    await earn('acc_s', 'lrn_s', 1_000_000);
    const list = path.join(dir, 'none.txt');
    fs.writeFileSync(list, '');
    let sends = 0;
    const sender: PayoutSender = {
      send: async () => {
        sends++;
        throw new Error('connection reset');
      },
    };
    const logger = createLogger('silent');
    const sanctions = sanctionsScreen(list);
    const payouts = createPayouts({ db, clock, logger, sender, sanctions });
    const s = createWithdrawalsService({
      db,
      clock,
      logger,
      baseUrl: () => 'http://127.0.0.1:1',
      termsUrl: () => 'http://127.0.0.1:1/terms',
      enabled: true,
      sanctions,
      payouts,
      rateLimiter: createRateLimiter({ db, clock }),
    });
    clock.advance(1000);
    const ts = clock.now();
    const r = await s.viaWallet({
      wallet: wallet.address,
      signature: await wallet.signTypedData(withdrawalProof(wallet.address, ts)),
      timestamp: ts,
    });
    expect(r.status).toBe('processing_timeout');
    expect(sends).toBe(1);
    // Listed while its outcome is unknown: reconciliation does not ask the sender (asking is sending again).
    fs.writeFileSync(list, `${wallet.address}\n`);
    expect(await payouts.reconcile(r.settlement_id)).toMatchObject({ status: 'processing_timeout' });
    expect(await payouts.runPass()).toMatchObject({ checked: 1, unresolved: 1 });
    expect(sends).toBe(1);
    // Cleared again: reconciliation asks, and records what the sender answers.
    fs.writeFileSync(list, '# cleared\n');
    sender.send = async () => ({ txHash: '0xdone' });
    expect(await payouts.reconcile(r.settlement_id)).toMatchObject({ status: 'confirmed', tx_hash: '0xdone' });
    expect(await checkLedger(db)).toEqual([]);
  });

  it('a wallet payout never sent is not sent while the account is suspended; reinstated, it goes out and it withdraws again', async () => {
    await earn('acc_u', 'lrn_u', 1_000_000);
    const sent: string[] = [];
    const sender: PayoutSender = {
      send: async ({ settlementId }) => {
        sent.push(settlementId);
        return { txHash: `0xpaid${sent.length}` };
      },
    };
    const payouts = createPayouts({ db, clock, logger: createLogger('silent'), sender });
    // The withdrawal debited the balance into its settlement; the instance died before the payout went out.
    const opened = await db.tx(async (q) =>
      openSettlement(q, {
        holder: accountId,
        wallet: wallet.address,
        rail: 'wallet',
        amountMicro: (await ledgerStore.balance(q, accountId)).pending_micro,
        pollUrl: '/p',
        now: clock.now(),
      }),
    );
    await db.tx((q) => setSuspended(q, accountId, true, clock.now()));
    // Asking the sender is sending: nothing is asked, the payout stays held in its settlement.
    expect(await payouts.runPass()).toMatchObject({ checked: 1, unresolved: 1 });
    expect(await payouts.reconcile(opened.id)).toMatchObject({ status: 'pending' });
    expect(sent).toEqual([]);
    expect(await ledgerStore.balance(db, accountId)).toMatchObject({ pending_micro: 0 });
    expect(await checkLedger(db)).toEqual([]);
    await db.tx((q) => setSuspended(q, accountId, false, clock.now()));
    expect(await payouts.runPass()).toMatchObject({ checked: 1, confirmed: 1 });
    expect(sent).toEqual([opened.id]);
    await earn('acc_v', 'lrn_v', 1_000_000);
    clock.advance(1000);
    const ts = clock.now();
    const again = await service(sender).viaWallet({
      wallet: wallet.address,
      signature: await wallet.signTypedData(withdrawalProof(wallet.address, ts)),
      timestamp: ts,
    });
    expect(again).toMatchObject({ status: 'confirmed', amount: 0.7, tx_hash: '0xpaid2' });
    expect(await checkLedger(db)).toEqual([]);
  });
});

describe('sanctions screening and suspension on both withdrawal rails', () => {
  let server: TestServer;
  let standIn: Awaited<ReturnType<typeof startProcessorStandIn>>;
  let dir: string;
  let listFile: string;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'axle-sanctions-'));
    listFile = path.join(dir, 'blocked.txt');
    fs.writeFileSync(listFile, '# none yet\n');
    standIn = await startProcessorStandIn(SECRET);
    server = await startTestServer({
      AXLE_CUSTODIAL_WITHDRAWALS: 'true',
      AXLE_PROCESSOR_SECRET_KEY: SECRET,
      AXLE_PROCESSOR_API_URL: standIn.url,
      AXLE_SANCTIONS_LIST: listFile,
      AXLE_ADMIN_TOKEN: ADMIN,
    });
  });
  afterAll(async () => {
    await server.stop();
    await standIn.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a wallet listed after it was linked withdraws on neither rail: 403 sanctions_blocked, nothing moves', async () => {
    const e = await onboardedEarner(server, standIn, 2_000_000);
    fs.writeFileSync(listFile, `${e.wallet.address}\n`);
    const card = await post(server, '/withdraw/processor', { amount_usd: 1 }, { 'x-api-key': e.key });
    expect(card.status).toBe(403);
    expect(await card.json()).toMatchObject({ code: 'sanctions_blocked' });
    const chain = await withdraw(server, e.wallet, server.clock.now());
    expect(chain.status).toBe(403);
    expect(await chain.json()).toMatchObject({ code: 'sanctions_blocked' });
    expect(standIn.requests.filter((r) => r.path === '/v1/transfers')).toEqual([]);
    expect((await ledgerStore.balance(server.db, e.accountId)).pending_micro).toBe(1_400_000);
    // An unreadable list screens nobody in: 503, nothing moves.
    fs.rmSync(listFile);
    const unavailable = await post(server, '/withdraw/processor', { amount_usd: 1 }, { 'x-api-key': e.key });
    expect(unavailable.status).toBe(503);
    expect(await unavailable.json()).toMatchObject({ error: 'sanctions screening unavailable' });
    expect(await ledgerStore.inFlight(server.db, e.accountId)).toBeFalsy();
    expect(await checkLedger(server.db)).toEqual([]);
  });

  it('a card payout left unsent (a crash, a processor outage) is not sent once the wallet is listed: failed, amount back', async () => {
    fs.writeFileSync(listFile, '# none yet\n');
    const e = await onboardedEarner(server, standIn, 2_000_000);
    // The withdrawal passed the screen and opened its settlement; the process died before the transfer went out.
    const opened = await openedUnsent(server, e);
    fs.writeFileSync(listFile, `${e.wallet.address}\n`);
    server.clock.advance(2 * longestTransferMs()); // no request is still sending it
    const res = await fetch(`${server.url}/admin/settlements/${opened.id}/reconcile`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    expect(await res.json()).toMatchObject({ id: opened.id, status: 'failed' });
    expect(standIn.transfers.filter((t) => t.destination === e.destination)).toEqual([]);
    expect((await ledgerStore.balance(server.db, e.accountId)).pending_micro).toBe(1_400_000);
    expect(await checkLedger(server.db)).toEqual([]);
  });

  it('the payout pass sends nothing for a suspended account: a card payout never sent fails with its amount back, one the processor took is confirmed', async () => {
    fs.writeFileSync(listFile, '# none yet\n');
    const [unsent, taken] = [
      await onboardedEarner(server, standIn, 2_000_000),
      await onboardedEarner(server, standIn, 2_000_000),
    ];
    // Both withdrawals opened their settlement before the suspension; the instance died before recording a transfer.
    const [never, sent] = [await openedUnsent(server, unsent), await openedUnsent(server, taken)];
    // The second had reached the processor: its transfer went out before the instance died.
    const processor = await stripeProcessor({ secretKey: SECRET, apiUrl: standIn.url });
    const transfer = await processor.transfer({
      destination: taken.destination,
      amountCents: 100,
      settlementId: sent.id,
    });
    const admin = (e: typeof unsent, action: 'suspend' | 'unsuspend') =>
      fetch(`${server.url}/admin/accounts/${e.accountId}/${action}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN}` },
      });
    for (const e of [unsent, taken]) expect((await admin(e, 'suspend')).status).toBe(200);
    // Past the time a request could still be sending them (the instance died).
    server.clock.advance(2 * longestTransferMs());
    const payouts = payoutsOf(server, {
      processor,
      sanctions: sanctionsScreen(listFile),
    });
    expect(await payouts.runPass()).toMatchObject({ checked: 2, confirmed: 1, failed: 1 });
    expect(await ledgerStore.settlement(server.db, never.id)).toMatchObject({
      status: 'failed',
      failure_reason: 'account_suspended',
    });
    expect(await ledgerStore.settlement(server.db, sent.id)).toMatchObject({
      status: 'confirmed',
      payout_id: transfer.id,
    });
    const posted = (e: typeof unsent) =>
      standIn.requests.filter((r) => r.path === '/v1/transfers' && r.form.get('destination') === e.destination);
    expect(posted(unsent)).toEqual([]);
    expect(posted(taken)).toHaveLength(1);
    expect((await ledgerStore.balance(server.db, unsent.accountId)).pending_micro).toBe(1_400_000);
    expect((await ledgerStore.balance(server.db, taken.accountId)).pending_micro).toBe(400_000);
    expect(await checkLedger(server.db)).toEqual([]);
    // Reinstated, the account withdraws again as before.
    expect((await admin(unsent, 'unsuspend')).status).toBe(200);
    const again = await post(server, '/withdraw/processor', { amount_usd: 1 }, { 'x-api-key': unsent.key });
    expect(await again.json()).toMatchObject({ status: 'confirmed', amount: 1 });
    expect(standIn.transfers.filter((t) => t.destination === unsent.destination).map((t) => t.amount)).toEqual([100]);
    expect(await checkLedger(server.db)).toEqual([]);
  });

  it('a card payout still being sent when its account is suspended is not failed by the pass: the transfer that lands is its one payment', async () => {
    const e = await onboardedEarner(server, standIn, 2_000_000);
    const before = (await ledgerStore.balance(server.db, e.accountId)).pending_micro;
    // The processor holds the request and creates the transfer only later.
    standIn.setTransferMode('late', e.destination);
    const reached = standIn.nextRequest(
      (p, _q, form) => p === '/v1/transfers' && form.get('destination') === e.destination,
    );
    const withdrawal = post(server, '/withdraw/processor', { amount_usd: 1 }, { 'x-api-key': e.key });
    await reached;
    const suspend = await fetch(`${server.url}/admin/accounts/${e.accountId}/suspend`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    expect(suspend.status).toBe(200);
    const payouts = payoutsOf(server, {
      processor: await stripeProcessor({ secretKey: SECRET, apiUrl: standIn.url }),
    });
    // The processor has no transfer for it yet; the request may still be sending it: left as it is.
    server.clock.advance(longestTransferMs() - 1);
    expect(await payouts.runPass()).toMatchObject({ checked: 1, failed: 0, unresolved: 1 });
    const [open] = await ledgerStore.settlementsFor(server.db, e.accountId, 1);
    expect(open).toMatchObject({ status: 'pending', failure_reason: null });
    expect((await ledgerStore.balance(server.db, e.accountId)).pending_micro).toBe(before - 1_000_000);
    standIn.release();
    expect(await (await withdrawal).json()).toMatchObject({ status: 'confirmed', amount: 1 });
    expect(standIn.transfers.filter((t) => t.destination === e.destination).map((t) => t.amount)).toEqual([100]);
    expect((await ledgerStore.balance(server.db, e.accountId)).pending_micro).toBe(before - 1_000_000);
    expect(await checkLedger(server.db)).toEqual([]);
    standIn.setTransferMode('normal');
  });

  it('a pass does not send a payout resolved while it worked through its list: failed and refunded meanwhile, it stays unpaid', async () => {
    fs.writeFileSync(listFile, '# none yet\n');
    const [slow, later] = [
      await onboardedEarner(server, standIn, 2_000_000),
      await onboardedEarner(server, standIn, 2_000_000),
    ];
    // Two withdrawals left unsent by an instance that died; the pass takes them oldest first.
    const first = await openedUnsent(server, slow);
    server.clock.advance(1);
    const second = await openedUnsent(server, later);
    server.clock.advance(2 * longestTransferMs());
    standIn.setTransferMode('late', slow.destination);
    const reached = standIn.nextRequest(
      (p, _q, form) => p === '/v1/transfers' && form.get('destination') === slow.destination,
    );
    const payouts = payoutsOf(server, {
      processor: await stripeProcessor({ secretKey: SECRET, apiUrl: standIn.url }),
      sanctions: sanctionsScreen(listFile),
    });
    const pass = payouts.runPass();
    await reached;
    // While the pass waits on the first, the second is failed (its account suspended: nothing sent, amount back)
    // and the account reinstated.
    const admin = (action: string) =>
      fetch(`${server.url}/admin/${action}`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN}` } });
    expect((await admin(`accounts/${later.accountId}/suspend`)).status).toBe(200);
    expect(await (await admin(`settlements/${second.id}/reconcile`)).json()).toMatchObject({ status: 'failed' });
    expect((await admin(`accounts/${later.accountId}/unsuspend`)).status).toBe(200);
    standIn.release();
    await pass;
    expect(standIn.transfers.filter((t) => t.destination === later.destination)).toEqual([]);
    expect(await ledgerStore.settlement(server.db, second.id)).toMatchObject({ status: 'failed' });
    expect(await ledgerStore.settlement(server.db, first.id)).toMatchObject({ status: 'confirmed' });
    expect((await ledgerStore.balance(server.db, later.accountId)).pending_micro).toBe(1_400_000);
    expect(await checkLedger(server.db)).toEqual([]);
    standIn.setTransferMode('normal');
  });

  it('a payout one reconciler is failing as never sent while another starts sending it is not failed: the transfer that lands is its payment', async () => {
    fs.writeFileSync(listFile, '# none yet\n');
    const e = await onboardedEarner(server, standIn, 2_000_000);
    const opened = await openedUnsent(server, e);
    server.clock.advance(2 * longestTransferMs());
    const processor = await stripeProcessor({ secretKey: SECRET, apiUrl: standIn.url });
    const make = (sanctions?: SanctionsScreen) =>
      payoutsOf(server, {
        processor,
        sanctions,
      });
    // The first reconciler finds no transfer and screens the wallet: listed, it will fail the payout as never sent;
    // the screen answers only once the second reconciler's send has started.
    let screened!: () => void;
    const screening = new Promise<void>((r) => (screened = r));
    let answer!: () => void;
    const answered = new Promise<void>((r) => (answer = r));
    const failer = make({
      assertAllowed: async () => {
        screened();
        await answered;
        throw new DomainError(ERROR_CODES.SANCTIONS_BLOCKED, 'listed');
      },
    });
    const failing = failer.reconcile(opened.id);
    await screening;
    standIn.setTransferMode('late', e.destination);
    const reached = standIn.nextRequest(
      (p, _q, form) => p === '/v1/transfers' && form.get('destination') === e.destination,
    );
    const sending = make().reconcile(opened.id);
    await reached;
    answer();
    await failing;
    standIn.release();
    expect(await sending).toMatchObject({ status: 'confirmed' });
    expect(standIn.transfers.filter((t) => t.destination === e.destination).map((t) => t.amount)).toEqual([100]);
    expect((await ledgerStore.balance(server.db, e.accountId)).pending_micro).toBe(400_000);
    expect(await checkLedger(server.db)).toEqual([]);
    standIn.setTransferMode('normal');
  });

  it("a pass's own send that timed out is not failed by the next pass before the processor could have acted on it", async () => {
    const e = await onboardedEarner(server, standIn, 2_000_000);
    const before = (await ledgerStore.balance(server.db, e.accountId)).pending_micro;
    // Opened by a request whose instance died before sending; a pass sends it long after.
    const opened = await openedUnsent(server, e);
    const timeoutMs = 300;
    const payouts = payoutsOf(server, {
      processor: await stripeProcessor({ secretKey: SECRET, apiUrl: standIn.url, timeoutMs, maxNetworkRetries: 0 }),
      sendWindowMs: longestTransferMs(timeoutMs, 0),
    });
    server.clock.advance(60_000);
    // The processor holds the pass's transfer request past the SDK's timeout, and acts on it only later.
    standIn.setTransferMode('late', e.destination);
    expect(await payouts.runPass()).toMatchObject({ checked: 1, unresolved: 1 });
    expect(await ledgerStore.settlement(server.db, opened.id)).toMatchObject({ status: 'processing_timeout' });
    await server.db.tx((q) => setSuspended(q, e.accountId, true, server.clock.now()));
    server.clock.advance(timeoutMs / 3);
    expect(await payouts.runPass()).toMatchObject({ checked: 1, failed: 0, unresolved: 1 });
    const landed = standIn.nextTransfer();
    standIn.release();
    await landed;
    server.clock.advance(timeoutMs);
    expect(await payouts.runPass()).toMatchObject({ checked: 1, confirmed: 1 });
    expect(standIn.transfers.filter((t) => t.destination === e.destination).map((t) => t.amount)).toEqual([100]);
    expect((await ledgerStore.balance(server.db, e.accountId)).pending_micro).toBe(before - 1_000_000);
    expect(await checkLedger(server.db)).toEqual([]);
    standIn.setTransferMode('normal');
  });
});

describe('card withdrawals through two server instances on one database', () => {
  let a: TestServer;
  let b: TestServer;
  let standIn: Awaited<ReturnType<typeof startProcessorStandIn>>;
  let dir: string;
  beforeAll(async () => {
    standIn = await startProcessorStandIn(SECRET);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'axle-two-'));
    prepareDataDir(dir, 'catalog');
    const env = {
      AXLE_CUSTODIAL_WITHDRAWALS: 'true',
      AXLE_PROCESSOR_SECRET_KEY: SECRET,
      AXLE_PROCESSOR_API_URL: standIn.url,
      AXLE_PROCESSOR_TIMEOUT_MS: '150',
      AXLE_ADMIN_TOKEN: ADMIN,
      ...(await backendEnv('catalog')),
    };
    a = await startTestServer(env, { dataDir: dir });
    b = await startTestServer(env, { dataDir: dir, clock: a.clock });
  });
  afterAll(async () => {
    await b.stop({ keepData: true });
    await a.stop();
    await standIn.close();
  });

  const pay = (s: TestServer, key: string, amount_usd: number, headers: Record<string, string> = {}) =>
    post(s, '/withdraw/processor', { amount_usd }, { 'x-api-key': key, ...headers });
  const reconcile = (s: TestServer, id: string) =>
    fetch(`${s.url}/admin/settlements/${id}/reconcile`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}` },
    });

  it('one withdrawal sent to both at once while the processor is slow: one 202, one 409, one transfer; both reconciling it at once confirm it once', async () => {
    const e = await onboardedEarner(a, standIn, 2_000_000);
    standIn.setTransferMode('slow', e.destination);
    const answers = await Promise.all([pay(a, e.key, 1), pay(b, e.key, 1)]);
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).toEqual([202, 409]);
    const bodies = (await Promise.all(answers.map((r) => r.json()))) as Array<{ settlement_id: string; code?: string }>;
    const [first, refused] = answers[0]!.status === 202 ? bodies : [bodies[1]!, bodies[0]!];
    expect(refused).toMatchObject({ code: 'WITHDRAWAL_IN_FLIGHT', settlement_id: first!.settlement_id });
    standIn.setTransferMode('normal', e.destination);
    standIn.release();
    const resolved = await Promise.all([reconcile(a, first!.settlement_id), reconcile(b, first!.settlement_id)]);
    for (const r of resolved) expect(await r.json()).toMatchObject({ status: 'confirmed' });
    expect(standIn.transfers.filter((t) => t.destination === e.destination).map((t) => t.amount)).toEqual([100]);
    expect((await ledgerStore.balance(a.db, e.accountId)).pending_micro).toBe(400_000);
    expect(await checkLedger(a.db)).toEqual([]);
  });

  it('one Idempotency-Key sent to both at once: one settlement, one transfer, both answers name it', async () => {
    const e = await onboardedEarner(a, standIn, 2_000_000);
    const answers = await Promise.all([
      pay(a, e.key, 1, { 'idempotency-key': 'twice' }),
      pay(b, e.key, 1, { 'idempotency-key': 'twice' }),
    ]);
    const bodies = (await Promise.all(answers.map((r) => r.json()))) as Array<{ settlement_id: string }>;
    for (const r of answers) expect([200, 202]).toContain(r.status);
    expect(bodies[0]!.settlement_id).toBe(bodies[1]!.settlement_id);
    expect(standIn.transfers.filter((t) => t.destination === e.destination).map((t) => t.amount)).toEqual([100]);
    expect((await ledgerStore.balance(a.db, e.accountId)).pending_micro).toBe(400_000);
    expect(await checkLedger(a.db)).toEqual([]);
  });
});
