import { LearningFull, LIMITS, untrustedText } from '@axle/sdk';
import { decodePaymentResponseHeader } from '@x402/core/http';
import { getDefaultAsset } from '@x402/evm';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { hexToBigInt, numberToHex, parseSignature, serializeSignature } from 'viem';
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../src/clock.js';
import { NETWORK, USDC } from '../src/payments/x402-requirements.js';
import { checkLedger } from '../src/services/ledger-check.js';
import { ledgerStore } from '../src/store/ledger.js';
import { startTestServer, type TestServer } from '../../../test/support/server.js';
import { startFacilitator } from './facilitator-standin.js';
import { walletsStore } from '../src/store/wallets.js';
import { getUnlock, newBuyer, seedLearning, signAuthorization, v1Header, v2Header } from './money-helpers.js';

const PAY_TO = '0x000000000000000000000000000000000000a11e';
/** The order of secp256k1's group. */
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const USDC_BASE = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
const nowSec = (server: TestServer) => BigInt(Math.floor(server.clock.now() / 1000));
/** `account`'s authorization of 80,000 micro-USDC to PAY_TO, valid for two minutes by the server's clock. */
const authorize = (server: TestServer, account: PrivateKeyAccount) =>
  signAuthorization(account, { to: PAY_TO, value: 80_000, validBefore: nowSec(server) + 120n });

/** Real time: @x402/fetch signs authorizations against the wall clock. */
const start = (env: Record<string, string> = {}) => startTestServer(env, { clock: new ManualClock(Date.now()) });

describe('USDC on Base', () => {
  it('is the asset and EIP-712 domain @x402/evm gives for the network', () => {
    expect(USDC).toEqual(getDefaultAsset(NETWORK));
  });
});

describe('x402 payments verified offline (no settlement configured)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await start();
  });
  afterAll(() => server.stop());

  it('@x402/fetch 2.x with a viem account pays end to end through the PAYMENT-REQUIRED header', async () => {
    const l = await seedLearning(server, { currentPriceMicro: 90_000 });
    const account = privateKeyToAccount(generatePrivateKey());
    const client = new x402Client();
    registerExactEvmScheme(client, { signer: account });
    const res = await wrapFetchWithPayment(fetch, client)(`${server.url}/knowledge/${l.id}`);
    expect(res.status).toBe(200);
    const full = LearningFull.parse(await res.json());
    expect(untrustedText(full.body)).toBe(l.body);
    expect(full._revenue).toMatchObject({
      amount_paid_usd: 0.09,
      contributor_earned_usd: 0.063,
      platform_earned_usd: 0.027,
    });
    const settled = decodePaymentResponseHeader(res.headers.get('payment-response')!);
    expect(settled).toMatchObject({ success: true, network: 'eip155:8453', payer: account.address.toLowerCase() });
    // Never settled, so no signed receipt: a receipt says the payment was received.
    expect(settled.extensions).toBeUndefined();
    const row = await server.db.get<{ settlement_path: string; buyer: string }>(
      'SELECT settlement_path, buyer FROM unlocks WHERE learning_id = ?',
      [l.id],
    );
    expect(row).toEqual({ settlement_path: 'offline', buyer: account.address.toLowerCase() });
  });

  it('accepts a v1-shaped payload signed with viem in X-Payment and answers X-PAYMENT-RESPONSE', async () => {
    const l = await seedLearning(server);
    const account = privateKeyToAccount(generatePrivateKey());
    const payload = await authorize(server, account);
    const res = await getUnlock(server, l.id, { 'x-payment': v1Header(payload) });
    expect(res.status).toBe(200);
    expect(decodePaymentResponseHeader(res.headers.get('x-payment-response')!)).toMatchObject({ success: true });
    // A second, fresh authorization by the same payer within 30 days is served without being settled.
    const again = await authorize(server, account);
    const repeat = (await (await getUnlock(server, l.id, { 'x-payment': v1Header(again) })).json()) as LearningFull;
    expect(repeat._revenue).toMatchObject({ accrual_capped: true, amount_paid_usd: 0 });
    const gross = await server.db.get<{ s: number }>(
      'SELECT SUM(gross_micro) AS s FROM unlocks WHERE learning_id = ?',
      [l.id],
    );
    expect(gross!.s).toBe(80_000);
  });

  it('the same payment header sent 20 times at once buys exactly one unlock', async () => {
    const l = await seedLearning(server);
    const account = privateKeyToAccount(generatePrivateKey());
    const header = v1Header(await authorize(server, account));
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => getUnlock(server, l.id, { 'x-payment': header })),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 402)).toHaveLength(19);
    const refused = (await responses.find((r) => r.status === 402)!.json()) as { error: string; accepts: unknown[] };
    expect(refused.error).toBe('payment authorization already used');
    expect(refused.accepts).toHaveLength(1);
    const n = await server.db.get<{ n: number }>(
      'SELECT COUNT(*) AS n FROM unlocks WHERE learning_id = ? AND gross_micro > 0',
      [l.id],
    );
    expect(n!.n).toBe(1);
  });

  it('one authorization sent for six learnings at once, in X-Payment and in PAYMENT-SIGNATURE, buys one unlock', async () => {
    const learnings = await Promise.all(Array.from({ length: 6 }, () => seedLearning(server)));
    const payload = await authorize(server, privateKeyToAccount(generatePrivateKey()));
    const accepted = {
      scheme: 'exact',
      network: 'eip155:8453',
      asset: USDC_BASE,
      amount: '80000',
      payTo: PAY_TO,
      maxTimeoutSeconds: 300,
    };
    const responses = await Promise.all(
      learnings.flatMap((l) => [
        getUnlock(server, l.id, { 'x-payment': v1Header(payload) }),
        getUnlock(server, l.id, { 'payment-signature': v2Header(payload, accepted) }),
      ]),
    );
    expect(responses.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of responses.filter((r) => r.status !== 200)) {
      expect(r.status).toBe(402);
      expect(((await r.json()) as { error: string }).error).toBe('payment authorization already used');
    }
    const ids = learnings.map((l) => l.id);
    const paid = await server.db.get<{ n: number }>(
      `SELECT COUNT(*) AS n FROM unlocks WHERE learning_id IN (${ids.map(() => '?').join(', ')})`,
      ids,
    );
    expect(paid!.n).toBe(1);
    expect(await checkLedger(server.db)).toEqual([]);
  });

  it('refuses an authorization for one price on a dearer learning, and one addressed to another payTo', async () => {
    const dear = await seedLearning(server, { currentPriceMicro: 500_000 });
    const account = privateKeyToAccount(generatePrivateKey());
    const cheap = await authorize(server, account);
    const res = await getUnlock(server, dear.id, { 'x-payment': v1Header(cheap) });
    expect(res.status).toBe(402);
    expect(((await res.json()) as { error: string }).error).toMatch(/does not equal the price 500000/);
    expect(res.headers.get('payment-required')).toBeTruthy();
    const elsewhere = await signAuthorization(account, {
      to: '0x00000000000000000000000000000000000bad00',
      value: 500_000,
      validBefore: nowSec(server) + 120n,
    });
    const res2 = await getUnlock(server, dear.id, { 'x-payment': v1Header(elsewhere) });
    expect(res2.status).toBe(402);
    expect(((await res2.json()) as { error: string }).error).toMatch(/not addressed to payTo/);
  });

  it('refuses forged signatures, expired or early authorizations, wrong networks, assets and garbage', async () => {
    const l = await seedLearning(server);
    const victim = privateKeyToAccount(generatePrivateKey());
    const forger = privateKeyToAccount(generatePrivateKey());
    const forged = await authorize(server, forger);
    forged.authorization.from = victim.address;
    const cases: Array<[string, RegExp]> = [
      [v1Header(forged), /invalid signature/],
      [
        v1Header(await signAuthorization(victim, { to: PAY_TO, value: 80_000, validBefore: nowSec(server) + 3n })),
        /expired/,
      ],
      [
        v1Header(
          await signAuthorization(victim, {
            to: PAY_TO,
            value: 80_000,
            validAfter: nowSec(server) + 60n,
            validBefore: nowSec(server) + 120n,
          }),
        ),
        /not valid yet/,
      ],
      [
        v1Header(await signAuthorization(victim, { to: PAY_TO, value: 80_000, validBefore: nowSec(server) + 3600n })),
        /longer than maxTimeoutSeconds/,
      ],
      [v1Header(await authorize(server, victim), 'eip155:1'), /wrong network/],
      ['not base64!', /not base64/],
      [Buffer.from('{"x402Version":3}').toString('base64'), /not an x402 exact-scheme payload/],
    ];
    for (const [header, error] of cases) {
      const res = await getUnlock(server, l.id, { 'x-payment': header });
      expect(res.status).toBe(402);
      expect(((await res.json()) as { error: string }).error).toMatch(error);
    }
    const v2 = await authorize(server, victim);
    const wrongAsset = v2Header(v2, {
      scheme: 'exact',
      network: 'eip155:8453',
      asset: '0x0000000000000000000000000000000000000001',
      amount: '80000',
      payTo: PAY_TO,
      maxTimeoutSeconds: 300,
    });
    const res = await getUnlock(server, l.id, { 'payment-signature': wrongAsset });
    expect(((await res.json()) as { error: string }).error).toMatch(/wrong asset/);
    expect(await server.db.get('SELECT 1 FROM unlocks WHERE learning_id = ?', [l.id])).toBeUndefined();
  });

  it('refuses the high-s form of a signature, which USDC refuses; the canonical form pays', async () => {
    const l = await seedLearning(server);
    const payload = await authorize(server, privateKeyToAccount(generatePrivateKey()));
    const { r, s, yParity } = parseSignature(payload.signature);
    // The same authorization, its signature re-encoded without the key: (r, n - s) with the other parity.
    const highS = serializeSignature({
      r,
      s: numberToHex(SECP256K1_N - hexToBigInt(s), { size: 32 }),
      yParity: 1 - yParity!,
    });
    const res = await getUnlock(server, l.id, { 'x-payment': v1Header({ ...payload, signature: highS }) });
    expect(res.status).toBe(402);
    expect(((await res.json()) as { error: string }).error).toMatch(/signature is not in the canonical \(low-s\) form/);
    expect(await server.db.get('SELECT 1 FROM payment_claims WHERE learning_id = ?', [l.id])).toBeUndefined();
    expect((await getUnlock(server, l.id, { 'x-payment': v1Header(payload) })).status).toBe(200);
  });

  it('a payer who is the contributor wallet pays, but accrues nothing to itself', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const l = await seedLearning(server, { contributorWallet: account.address });
    const payload = await authorize(server, account);
    const full = (await (await getUnlock(server, l.id, { 'x-payment': v1Header(payload) })).json()) as LearningFull;
    expect(full._revenue).toMatchObject({ self_unlock: true, contributor_earned_usd: 0, platform_earned_usd: 0.08 });
    expect((await ledgerStore.balance(server.db, account.address.toLowerCase())).held_micro).toBe(0);
    expect(await checkLedger(server.db)).toEqual([]);
  });

  it('ledger:check reports an x402 unlock booked at another amount than its payment authorized', async () => {
    const { l, res } = await payNewLearning(server);
    expect(res.status).toBe(200);
    const claim = await server.db.get<{ unlock_id: string; payload: string }>(
      'SELECT unlock_id, payload FROM payment_claims WHERE learning_id = ?',
      [l.id],
    );
    // As a booking at the price of a reprice made after the payment would read (the payment moved less).
    const signed = JSON.parse(claim!.payload) as { authorization: { value: string } };
    const lower = { ...signed, authorization: { ...signed.authorization, value: '40000' } };
    await server.db.run('UPDATE payment_claims SET payload = ? WHERE unlock_id = ?', [
      JSON.stringify(lower),
      claim!.unlock_id,
    ]);
    try {
      expect(await checkLedger(server.db)).toEqual([
        `x402 unlock booked at another amount than its payment authorized: ${JSON.stringify({
          unlock_id: claim!.unlock_id,
          gross_micro: 80000,
          authorized_micro: 40000,
        })}`,
      ]);
    } finally {
      await server.db.run('UPDATE payment_claims SET payload = ? WHERE unlock_id = ?', [
        claim!.payload,
        claim!.unlock_id,
      ]);
    }
    expect(await checkLedger(server.db)).toEqual([]);
  });

  it("a payer that is the owner account's linked wallet pays, but accrues nothing to itself", async () => {
    // The learning names no contributor wallet: its owner is an account, whose verified wallet pays for it.
    const wallet = privateKeyToAccount(generatePrivateKey());
    const owner = await newBuyer(server, { terms: true });
    await walletsStore.link(server.db, owner.accountId, wallet.address);
    const l = await seedLearning(server, { contributorAccountId: owner.accountId });
    const payload = await authorize(server, wallet);
    const full = (await (await getUnlock(server, l.id, { 'x-payment': v1Header(payload) })).json()) as LearningFull;
    expect(full._revenue).toMatchObject({ self_unlock: true, contributor_earned_usd: 0, platform_earned_usd: 0.08 });
    const booked = await server.db.get<{ self_dealing: number }>(
      'SELECT self_dealing FROM unlocks WHERE learning_id = ?',
      [l.id],
    );
    expect(booked?.self_dealing).toBe(1);
    expect(await checkLedger(server.db)).toEqual([]);
  });
});

/** A fresh payer's x402 unlock of a newly seeded learning. */
async function payNewLearning(server: TestServer) {
  const l = await seedLearning(server);
  const account = privateKeyToAccount(generatePrivateKey());
  const payload = await authorize(server, account);
  return { l, account, payload, res: await getUnlock(server, l.id, { 'x-payment': v1Header(payload) }) };
}

describe('x402 payments through a facilitator', () => {
  it('verifies and settles before serving, and answers with the transaction hash', async () => {
    const facilitator = await startFacilitator();
    const server = await start({ AXLE_FACILITATOR_URL: facilitator.url });
    try {
      // Without AXLE_RPC_URL a settle that times out cannot be read from the chain: the operator is told.
      expect(server.logs.some((l) => l.includes('x402 settlements that time out cannot be reconciled'))).toBe(true);
      const { l, account, payload, res } = await payNewLearning(server);
      expect(res.status).toBe(200);
      expect(decodePaymentResponseHeader(res.headers.get('x-payment-response')!).transaction).toBe(
        `0x${'ab'.repeat(32)}`,
      );
      const paths = facilitator.calls.map((c) => c.path);
      expect(paths).toEqual(['/supported', '/verify', '/settle']);
      // /supported is asked once, not per payment.
      const again = await authorize(server, account);
      const next = await seedLearning(server);
      expect((await getUnlock(server, next.id, { 'x-payment': v1Header(again) })).status).toBe(200);
      expect(facilitator.calls.map((c) => c.path)).toEqual(['/supported', '/verify', '/settle', '/verify', '/settle']);
      expect(facilitator.calls[2]!.body).toMatchObject({
        x402Version: 2,
        paymentPayload: { x402Version: 2, payload: { signature: payload.signature } },
        paymentRequirements: {
          scheme: 'exact',
          network: 'eip155:8453',
          amount: '80000',
          asset: USDC_BASE,
          payTo: PAY_TO,
        },
      });
      const row = await server.db.get<{ settlement_path: string; tx_hash: string }>(
        'SELECT settlement_path, tx_hash FROM unlocks WHERE learning_id = ?',
        [l.id],
      );
      expect(row).toEqual({ settlement_path: 'facilitator', tx_hash: `0x${'ab'.repeat(32)}` });
    } finally {
      await server.stop();
      await facilitator.close();
    }
  });

  it("a repeat's authorization, never to be settled, is never handed to the facilitator", async () => {
    const facilitator = await startFacilitator();
    const server = await start({ AXLE_FACILITATOR_URL: facilitator.url });
    try {
      const { l, account, res } = await payNewLearning(server);
      expect(res.status).toBe(200);
      const calls = facilitator.calls.length;
      // A fresh authorization for the same learning within 30 days: served free, claimed, never settled. A facilitator
      // holding it (a /verify) could still submit it, and the payer would pay twice for one learning.
      const again = await authorize(server, account);
      const repeat = await getUnlock(server, l.id, { 'x-payment': v1Header(again) });
      expect(repeat.status).toBe(200);
      expect(((await repeat.json()) as LearningFull)._revenue).toMatchObject({ accrual_capped: true });
      expect(facilitator.calls.slice(calls).map((c) => c.path)).toEqual([]);
    } finally {
      await server.stop();
      await facilitator.close();
    }
  });

  it('a refused verification is 402; a failed settle gives the claim back for a retry', async () => {
    let settleFails = true;
    const facilitator = await startFacilitator({
      verify: (b) =>
        b.paymentRequirements?.amount === '80000'
          ? { isValid: true }
          : { isValid: false, invalidReason: 'insufficient_funds' },
      settle: () =>
        settleFails
          ? [500, { error: 'node down' }]
          : [200, { success: true, transaction: '0x01', network: 'eip155:8453' }],
    });
    const server = await start({ AXLE_FACILITATOR_URL: facilitator.url });
    try {
      const account = privateKeyToAccount(generatePrivateKey());
      const dear = await seedLearning(server, { currentPriceMicro: 90_000 });
      const refused = await getUnlock(server, dear.id, {
        'x-payment': v1Header(
          await signAuthorization(account, { to: PAY_TO, value: 90_000, validBefore: nowSec(server) + 120n }),
        ),
      });
      expect(refused.status).toBe(402);
      expect(((await refused.json()) as { error: string }).error).toMatch(/insufficient_funds/);

      const l = await seedLearning(server);
      const header = v1Header(await authorize(server, account));
      const down = await getUnlock(server, l.id, { 'x-payment': header });
      expect(down.status).toBe(502);
      // The claim records the failure and its reason; nothing moved, so the same authorization may be retried.
      expect(
        await server.db.get('SELECT state, reason, unlock_id FROM payment_claims WHERE learning_id = ?', [l.id]),
      ).toEqual({ state: 'failed', reason: expect.stringMatching(/facilitator settle failed/), unlock_id: null });
      settleFails = false;
      expect((await getUnlock(server, l.id, { 'x-payment': header })).status).toBe(200);
    } finally {
      await server.stop();
      await facilitator.close();
    }
  });

  it('a facilitator without exact payments on eip155:8453 is never sent one (502, the claim given back)', async () => {
    const facilitator = await startFacilitator({ network: 'eip155:84532' });
    const server = await start({ AXLE_FACILITATOR_URL: facilitator.url });
    try {
      const { l, res } = await payNewLearning(server);
      expect(res.status).toBe(502);
      expect(facilitator.calls.map((c) => c.path)).toEqual(['/supported']);
      expect(
        await server.db.get('SELECT state, reason, unlock_id FROM payment_claims WHERE learning_id = ?', [l.id]),
      ).toEqual({ state: 'failed', reason: expect.stringMatching(/does not settle exact payments/), unlock_id: null });
    } finally {
      await server.stop();
      await facilitator.close();
    }
  });

  it('router mode: payTo and extra.router name the router; _revenue.settlement = {tx_hash, path, router}', async () => {
    const router = '0x00000000000000000000000000000000000e0e0e';
    const facilitator = await startFacilitator();
    const server = await start({ AXLE_FACILITATOR_URL: facilitator.url, AXLE_ROUTER_ADDRESS: router });
    try {
      const l = await seedLearning(server);
      const body = (await (await getUnlock(server, l.id)).json()) as {
        accepts: Array<{ payTo: string; extra: Record<string, string> }>;
      };
      expect(body.accepts[0]!.payTo).toBe(router);
      expect(body.accepts[0]!.extra.router).toBe(router);
      const account = privateKeyToAccount(generatePrivateKey());
      const payload = await signAuthorization(account, {
        to: router,
        value: 80_000,
        validBefore: nowSec(server) + 120n,
      });
      const full = (await (await getUnlock(server, l.id, { 'x-payment': v1Header(payload) })).json()) as LearningFull;
      expect(full._revenue.settlement).toEqual({ tx_hash: `0x${'ab'.repeat(32)}`, path: 'router', router });
    } finally {
      await server.stop();
      await facilitator.close();
    }
  });
});

describe('anonymous payments and sign-ins per client address', () => {
  it('takes 60 a minute from one address before verifying anything; past it 429, nothing settled, the payment unspent', async () => {
    const facilitator = await startFacilitator();
    const server = await start({ AXLE_FACILITATOR_URL: facilitator.url });
    try {
      const { perMinute } = LIMITS.perAddress.anonymousPaidUnlock;
      const l = await seedLearning(server);
      // Payments and proofs count whatever they turn out to be; a bare request for the 402 does not.
      const junk = [];
      for (let i = 0; i < perMinute; i++)
        junk.push(
          (await getUnlock(server, l.id, i % 2 ? { 'x-payment': 'junk' } : { 'sign-in-with-x': 'junk' })).status,
        );
      expect(junk).toEqual(Array(perMinute).fill(402));
      expect((await getUnlock(server, l.id)).status).toBe(402);
      const account = privateKeyToAccount(generatePrivateKey());
      const header = v1Header(await authorize(server, account));
      const calls = facilitator.calls.length;
      const refused = await getUnlock(server, l.id, { 'x-payment': header });
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await refused.json()).toMatchObject({ code: 'rate_limited' });
      expect(await getUnlock(server, l.id, { 'sign-in-with-x': 'junk' }).then((r) => r.status)).toBe(429);
      expect(facilitator.calls.length).toBe(calls);
      expect(await server.db.get('SELECT COUNT(*) AS n FROM payment_claims WHERE learning_id = ?', [l.id])).toEqual({
        n: 0,
      });
      // A key is held to its credits, not to the address's count.
      const buyer = await newBuyer(server, { credits: 1 });
      expect((await getUnlock(server, l.id, { 'x-api-key': buyer.key, 'x-payment': header })).status).toBe(200);
      server.clock.advance(60_000);
      const paid = await getUnlock(server, l.id, { 'x-payment': header });
      expect(paid.status).toBe(200);
      expect(facilitator.calls.filter((c) => c.path === '/settle')).toHaveLength(1);
      expect(await checkLedger(server.db)).toEqual([]);
    } finally {
      await server.stop();
      await facilitator.close();
    }
  });
});

describe('a wallet reading again what it holds, each time by a fresh authorization', () => {
  let server: TestServer;
  let facilitator: Awaited<ReturnType<typeof startFacilitator>>;
  let n = 0;
  beforeAll(async () => {
    facilitator = await startFacilitator();
    // Behind a trusted proxy: each request from an address of its own, so the per-address limit is never met.
    server = await start({ AXLE_TRUST_PROXY: 'true', AXLE_FACILITATOR_URL: facilitator.url });
  });
  afterAll(async () => {
    await server.stop();
    await facilitator.close();
  });
  const settles = () => facilitator.calls.filter((c) => c.path === '/settle').length;

  const from = () => ({ 'x-forwarded-for': `10.9.${(++n >> 8) & 255}.${n & 255}` });
  const pay = async (id: string, account: PrivateKeyAccount) =>
    getUnlock(server, id, { ...from(), 'x-payment': v1Header(await authorize(server, account)) });
  const rows = async (wallet: PrivateKeyAccount) => ({
    claims: (await server.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM payment_claims WHERE payer = ?', [
      wallet.address.toLowerCase(),
    ]))!.n,
    unlocks: (await server.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM unlocks WHERE buyer = ?', [
      wallet.address.toLowerCase(),
    ]))!.n,
  });

  it('is limited per wallet in the database, spread over any number of addresses; nothing written past it', async () => {
    const { perMinute, perHour } = LIMITS.accountWrites.walletRepeatUnlock;
    const l = await seedLearning(server);
    const wallet = privateKeyToAccount(generatePrivateKey());
    expect((await pay(l.id, wallet)).status).toBe(200);
    for (let i = 0; i < perMinute; i++) {
      const again = await pay(l.id, wallet);
      expect(again.status).toBe(200);
      expect(((await again.json()) as LearningFull)._revenue).toMatchObject({ accrual_capped: true });
    }
    const before = await rows(wallet);
    expect(before).toEqual({ claims: perMinute + 1, unlocks: perMinute + 1 });
    const refused = await pay(l.id, wallet);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ code: 'rate_limited', retry_after_seconds: expect.any(Number) });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await rows(wallet)).toEqual(before);
    // Another wallet holding the learning is not held to this one's count.
    const other = privateKeyToAccount(generatePrivateKey());
    expect((await pay(l.id, other)).status).toBe(200);
    expect((await pay(l.id, other)).status).toBe(200);
    // The next minute it reads again, up to the hour's total.
    let served = perMinute;
    while (served < perHour) {
      server.clock.advance(60_000);
      for (let i = 0; i < perMinute && served < perHour; i++, served++)
        expect((await pay(l.id, wallet)).status).toBe(200);
    }
    server.clock.advance(60_000);
    expect((await pay(l.id, wallet)).status).toBe(429);
    expect(await checkLedger(server.db)).toEqual([]);
  });

  it("counts only the wallet's own signatures: nobody else can use up its count, and its first paid unlocks always pay", async () => {
    const { perMinute } = LIMITS.accountWrites.walletRepeatUnlock;
    server.clock.advance(3_600_000);
    const [a, b] = [await seedLearning(server), await seedLearning(server)];
    const victim = privateKeyToAccount(generatePrivateKey());
    const attacker = privateKeyToAccount(generatePrivateKey());
    const first = v1Header(await authorize(server, victim));
    expect((await getUnlock(server, a.id, { ...from(), 'x-payment': first })).status).toBe(200);
    for (let i = 0; i < perMinute + 5; i++) {
      // In the victim's name, signed by another key: refused unverified.
      const forged = await authorize(server, attacker);
      const header = v1Header({ ...forged, authorization: { ...forged.authorization, from: victim.address } });
      const refused = await getUnlock(server, a.id, { ...from(), 'x-payment': header });
      expect(refused.status).toBe(402);
      expect(((await refused.json()) as { error: string }).error).toMatch(/invalid signature/);
      // The victim's own payment, seen and sent again: already used.
      const replayed = await getUnlock(server, a.id, { ...from(), 'x-payment': first });
      expect(replayed.status).toBe(402);
      expect(((await replayed.json()) as { error: string }).error).toBe('payment authorization already used');
    }
    for (let i = 0; i < perMinute; i++) expect((await pay(a.id, victim)).status).toBe(200);
    expect((await pay(a.id, victim)).status).toBe(429);
    // Its count full, the wallet still buys what it does not hold: settled, paid in full.
    const paidBefore = settles();
    const bought = await pay(b.id, victim);
    expect(bought.status).toBe(200);
    expect(((await bought.json()) as LearningFull)._revenue).toMatchObject({ amount_paid_usd: 0.08 });
    expect(settles()).toBe(paidBefore + 1);
    expect((await pay(b.id, victim)).status).toBe(429);
    expect(await checkLedger(server.db)).toEqual([]);
  });
});

describe('a wallet whose payments are refused for its own reasons (no funds), each by a fresh authorization', () => {
  let server: TestServer;
  let facilitator: Awaited<ReturnType<typeof startFacilitator>>;
  /** Wallets the facilitator finds without funds, at /verify or at /settle. */
  const broke = new Map<string, 'verify' | 'settle'>();
  /** How the facilitator fails meanwhile, judging nothing. */
  let outage: 'verify-503' | 'verify-unexpected' | 'verify-500' | 'settle-500' | undefined;
  let n = 0;
  const payerOf = (b: { paymentPayload?: { payload?: { authorization?: { from?: string } } } }) =>
    b.paymentPayload?.payload?.authorization?.from?.toLowerCase() ?? '';
  beforeAll(async () => {
    facilitator = await startFacilitator({
      verify: (b) => {
        const payer = payerOf(b);
        if (outage === 'verify-503') return [503, { isValid: false, invalidReason: 'unexpected_verify_error' }];
        if (outage === 'verify-unexpected') return { isValid: false, invalidReason: 'unexpected_verify_error' };
        if (outage === 'verify-500') return [500, { error: 'node down' }];
        if (broke.get(payer) === 'verify') return { isValid: false, invalidReason: 'insufficient_funds', payer };
        return { isValid: true, payer };
      },
      settle: (b) => {
        const payer = payerOf(b);
        const network = 'eip155:8453';
        if (outage === 'settle-500') return [500, { error: 'node down' }];
        if (broke.get(payer) === 'settle')
          return [200, { success: false, errorReason: 'insufficient_funds', transaction: '', network, payer }];
        return [200, { success: true, transaction: `0x${'ab'.repeat(32)}`, network, payer }];
      },
    });
    // Behind a trusted proxy: each request from an address of its own, so the per-address limit is never met.
    server = await start({ AXLE_TRUST_PROXY: 'true', AXLE_FACILITATOR_URL: facilitator.url });
  });
  afterAll(async () => {
    await server.stop();
    await facilitator.close();
  });

  const from = () => ({ 'x-forwarded-for': `10.8.${(++n >> 8) & 255}.${n & 255}` });
  const pay = async (id: string, account: PrivateKeyAccount) =>
    getUnlock(server, id, { ...from(), 'x-payment': v1Header(await authorize(server, account)) });
  /** Calls to the facilitator about payments. */
  const asked = () => facilitator.calls.filter((c) => c.path !== '/supported').length;
  const claims = async (wallet: PrivateKeyAccount) =>
    (await server.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM payment_claims WHERE payer = ?', [
      wallet.address.toLowerCase(),
    ]))!.n;

  it('is limited per wallet, from any addresses: past it 429 at once, nothing claimed, the facilitator not asked', async () => {
    const { perMinute, perHour } = LIMITS.accountWrites.walletRefusedPayment;
    const held = await seedLearning(server);
    const wallet = privateKeyToAccount(generatePrivateKey());
    expect((await pay(held.id, wallet)).status).toBe(200);
    // Its funds gone: refused at /verify, then at /settle, for learnings it does not hold.
    for (let i = 0; i < perMinute; i++) {
      broke.set(wallet.address.toLowerCase(), i % 2 ? 'settle' : 'verify');
      const refused = await pay((await seedLearning(server)).id, wallet);
      expect(refused.status).toBe(402);
      expect(((await refused.json()) as { error: string }).error).toMatch(/insufficient_funds/);
    }
    const l = await seedLearning(server);
    const before = { claims: await claims(wallet), asked: asked() };
    const limited = await pay(l.id, wallet);
    expect(limited.status).toBe(429);
    expect(await limited.json()).toMatchObject({ code: 'rate_limited', retry_after_seconds: expect.any(Number) });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect({ claims: await claims(wallet), asked: asked() }).toEqual(before);
    // It still reads what it holds (a repeat asks nobody), and another wallet still pays for the learning.
    expect((await pay(held.id, wallet)).status).toBe(200);
    expect((await pay(l.id, privateKeyToAccount(generatePrivateKey()))).status).toBe(200);
    // The next minute it is asked about again, up to the hour's total.
    let refused = perMinute;
    while (refused < perHour) {
      server.clock.advance(60_000);
      for (let i = 0; i < perMinute && refused < perHour; i++, refused++)
        expect((await pay(l.id, wallet)).status).toBe(402);
    }
    server.clock.advance(60_000);
    expect((await pay(l.id, wallet)).status).toBe(429);
    // Funded again, it pays once the hour is over.
    broke.delete(wallet.address.toLowerCase());
    server.clock.advance(3_600_000);
    expect((await pay(l.id, wallet)).status).toBe(200);
    expect(await checkLedger(server.db)).toEqual([]);
  });

  it('refusals racing from many addresses for many learnings stay within the limit, never 500; settled ones are not counted', async () => {
    const { perMinute } = LIMITS.accountWrites.walletRefusedPayment;
    server.clock.advance(3_600_000);
    const wallet = privateKeyToAccount(generatePrivateKey());
    broke.set(wallet.address.toLowerCase(), 'verify');
    const learnings = await Promise.all(Array.from({ length: 3 * perMinute }, () => seedLearning(server)));
    const calls = asked();
    const statuses = (await Promise.all(learnings.map((l) => pay(l.id, wallet)))).map((r) => r.status);
    expect(statuses.filter((s) => s !== 402 && s !== 429)).toEqual([]);
    expect(statuses.filter((s) => s === 402).length).toBe(perMinute);
    expect(asked() - calls).toBe(perMinute);
    // Funded, the next minute: more than the limit of payments in a row all settle.
    broke.delete(wallet.address.toLowerCase());
    server.clock.advance(60_000);
    for (const l of learnings.slice(0, perMinute + 1)) expect((await pay(l.id, wallet)).status).toBe(200);
    expect(await checkLedger(server.db)).toEqual([]);
  });

  it("counts only the facilitator's refusals of the wallet's own signatures: not forgeries in its name, not outages", async () => {
    const { perMinute } = LIMITS.accountWrites.walletRefusedPayment;
    server.clock.advance(3_600_000);
    const victim = privateKeyToAccount(generatePrivateKey());
    const attacker = privateKeyToAccount(generatePrivateKey());
    const l = await seedLearning(server);
    const calls = asked();
    for (let i = 0; i < perMinute + 5; i++) {
      // In the victim's name, signed by another key: refused unverified, the facilitator never asked.
      const forged = await authorize(server, attacker);
      const header = v1Header({ ...forged, authorization: { ...forged.authorization, from: victim.address } });
      const refused = await getUnlock(server, l.id, { ...from(), 'x-payment': header });
      expect(refused.status).toBe(402);
      expect(((await refused.json()) as { error: string }).error).toMatch(/invalid signature/);
    }
    expect(asked()).toBe(calls);
    // The facilitator failing (5xx, its own error, down at settle): the victim's payments fail, not counted against it.
    for (const o of ['verify-503', 'verify-unexpected', 'verify-500', 'settle-500'] as const) {
      outage = o;
      for (let i = 0; i < perMinute; i++) expect((await pay(l.id, victim)).status).toBe(502);
    }
    outage = undefined;
    const paid = await pay(l.id, victim);
    expect(paid.status).toBe(200);
    expect(((await paid.json()) as LearningFull)._revenue).toMatchObject({ amount_paid_usd: 0.08 });
    expect(await checkLedger(server.db)).toEqual([]);
  });
});

describe('one wallet paying twice at once for one learning (a retry re-signed, or parallel tool calls)', () => {
  /** A facilitator whose /settle answers once `release` is called, and tells when a settle arrived. */
  async function heldFacilitator() {
    let release!: () => void;
    const released = new Promise<void>((r) => {
      release = r;
    });
    let arrived!: () => void;
    const settling = new Promise<void>((r) => {
      arrived = r;
    });
    let fail = false;
    const facilitator = await startFacilitator({
      settle: async (b) => {
        arrived();
        await released;
        return fail
          ? [500, { error: 'node down' }]
          : [
              200,
              {
                success: true,
                transaction: `0x${'ab'.repeat(32)}`,
                network: 'eip155:8453',
                payer: b.paymentPayload?.payload?.authorization?.from,
              },
            ];
      },
    });
    const settles = () => facilitator.calls.filter((c) => c.path === '/settle').length;
    const failSettle = (v: boolean) => {
      fail = v;
    };
    return { facilitator, release, settling, settles, failSettle };
  }

  /**
   * The first payment's settlement is held; the second, a new signature by the same wallet, is sent meanwhile.
   * The hold is released once the second is answered or has reached the facilitator too.
   */
  async function race(server: TestServer, held: Awaited<ReturnType<typeof heldFacilitator>>, learningId: string) {
    const account = privateKeyToAccount(generatePrivateKey());
    const first = getUnlock(server, learningId, { 'x-payment': v1Header(await authorize(server, account)) });
    await held.settling;
    const again = v1Header(await authorize(server, account));
    const second = getUnlock(server, learningId, { 'x-payment': again });
    const secondSettling = (async () => {
      while (held.settles() < 2) await new Promise((r) => setImmediate(r));
    })();
    await Promise.race([second, secondSettling]);
    held.release();
    return { account, again, first: await first, second: await second };
  }

  it('the payment sent second is not settled: 409, and sent again it is served free as a repeat', async () => {
    const held = await heldFacilitator();
    const server = await start({ AXLE_FACILITATOR_URL: held.facilitator.url });
    try {
      const l = await seedLearning(server);
      const { first, second, again } = await race(server, held, l.id);
      expect(first.status).toBe(200);
      expect(second.status).toBe(409);
      expect(await second.json()).toMatchObject({
        code: 'payment_in_progress',
        error: expect.stringMatching(/this payment was not charged/),
      });
      const retry = await getUnlock(server, l.id, { 'x-payment': again });
      expect(retry.status).toBe(200);
      expect(((await retry.json()) as LearningFull)._revenue).toMatchObject({
        accrual_capped: true,
        amount_paid_usd: 0,
      });
      expect(held.settles()).toBe(1);
      const gross = await server.db.get<{ s: number; n: number }>(
        'SELECT SUM(gross_micro) AS s, COUNT(*) AS n FROM unlocks WHERE learning_id = ?',
        [l.id],
      );
      expect(gross).toEqual({ s: 80_000, n: 2 });
      expect(await checkLedger(server.db)).toEqual([]);
    } finally {
      await server.stop();
      await held.facilitator.close();
    }
  });

  it('the first payment failing to settle lets the second pay', async () => {
    const held = await heldFacilitator();
    const server = await start({ AXLE_FACILITATOR_URL: held.facilitator.url });
    try {
      const l = await seedLearning(server);
      held.failSettle(true);
      const { first, second, again } = await race(server, held, l.id);
      expect(first.status).toBe(502);
      expect(second.status).toBe(409);
      held.failSettle(false);
      const retry = await getUnlock(server, l.id, { 'x-payment': again });
      expect(retry.status).toBe(200);
      expect(((await retry.json()) as LearningFull)._revenue).toMatchObject({ amount_paid_usd: 0.08 });
      expect(held.settles()).toBe(2);
    } finally {
      await server.stop();
      await held.facilitator.close();
    }
  });
});
