import { LIMITS } from '@axle/sdk';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from '@x402/core/http';
import type { SettleResponse } from '@x402/core/types';
import { appendPaymentIdentifierToExtensions, generatePaymentId } from '@x402/extensions/payment-identifier';
import {
  SIGN_IN_WITH_X,
  createSIWxPayload,
  encodeSIWxHeader,
  type SIWxExtension,
} from '@x402/extensions/sign-in-with-x';
import { createPublicClient, createWalletClient, encodeFunctionData, http, parseSignature } from 'viem';
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../src/clock.js';
import { chainReader, eip3009Abi } from '../src/payments/chain-settlement.js';
import { USDC } from '../src/payments/x402-requirements.js';
import { withdrawalProof } from '../src/services/withdrawals.js';
import { checkLedger } from '../src/services/ledger-check.js';
import { ledgerStore } from '../src/store/ledger.js';
import { learningsStore } from '../src/store/learnings.js';
import type { PaymentClaimRow } from '../src/store/payment-claims.js';
import { walletsStore } from '../src/store/wallets.js';
import { startTestServer, type TestServer } from '../../../test/support/server.js';
import { post } from '../../../test/support/identity.js';
import { listeningUrl, serverProcessEnv } from '../../../test/support/process.js';
import { startFacilitator } from './chain/facilitator.js';
import { batch, startLocalChain, token } from './chain/local-chain.js';
import { startRpcProxy } from './chain/rpc-proxy.js';
import { getUnlock, newBuyer, seedLearning, signAuthorization, v1Header } from './money-helpers.js';

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64');

const PAY_TO = '0x000000000000000000000000000000000000a11e';
const FIFTY_USD = 50_000_000;
const nowSec = (server: TestServer) => BigInt(Math.floor(server.clock.now() / 1000));
const newWallet = () => privateKeyToAccount(generatePrivateKey());

/** Real time: the local chain's blocks carry the wall clock, which the authorizations' window is checked against. */
const start = (env: Record<string, string> = {}) =>
  startTestServer(
    { AXLE_CUSTODIAL_WITHDRAWALS: 'true', AXLE_ADMIN_TOKEN: ADMIN, ...env },
    { clock: new ManualClock(Date.now()) },
  );
/** A server that settles on the local chain itself (through `rpcUrl`, a proxy), waiting `waitMs` for a receipt. */
const settlingServer = (waitMs: number, rpcUrl = chain.rpcUrl) =>
  start({
    AXLE_RPC_URL: rpcUrl,
    AXLE_SETTLEMENT_KEY: chain.settlementKey,
    AXLE_SETTLEMENT_WAIT_MS: String(waitMs),
  });

/** A contributor account with accepted terms and a linked wallet, and a learning of theirs at `priceMicro`. */
async function contributor(server: TestServer, priceMicro: number) {
  const wallet = newWallet();
  const owner = await newBuyer(server, { terms: true });
  await walletsStore.link(server.db, owner.accountId, wallet.address);
  const learning = await seedLearning(server, {
    contributorAccountId: owner.accountId,
    contributorWallet: wallet.address,
    currentPriceMicro: priceMicro,
  });
  return { ...owner, wallet, learning };
}

const pay = async (server: TestServer, payer: PrivateKeyAccount, value: number) =>
  v1Header(await signAuthorization(payer, { to: PAY_TO, value, validBefore: nowSec(server) + 240n }));

/** A v2 payment carrying the payment-identifier `id`, as @x402/fetch signs it (a new nonce each time). */
async function signedUnder(server: TestServer, learningId: string, payer: PrivateKeyAccount, id: string) {
  const res = await getUnlock(server, learningId);
  const pr = decodePaymentRequiredHeader(res.headers.get('payment-required')!);
  const accepted = pr.accepts[0]!;
  const extensions = { ...pr.extensions };
  appendPaymentIdentifierToExtensions(extensions, id);
  const payload = await signAuthorization(payer, {
    to: accepted.payTo,
    value: BigInt(accepted.amount),
    validBefore: nowSec(server) + 240n,
  });
  return b64({ x402Version: 2, accepted, payload, extensions });
}

/** GET /unlock with a new signature under the payment-identifier `id`. */
const paidUnder = async (server: TestServer, learningId: string, payer: PrivateKeyAccount, id: string) =>
  getUnlock(server, learningId, { 'payment-signature': await signedUnder(server, learningId, payer, id) });

const earnings = async (server: TestServer, key: string) =>
  (await (await fetch(`${server.url}/account/earnings`, { headers: { 'x-api-key': key } })).json()) as {
    pending_balance: number;
    awaiting_settlement: number;
    can_withdraw: boolean;
    message: string;
  };

const withdraw = async (server: TestServer, signer: PrivateKeyAccount) => {
  const timestamp = server.clock.now();
  return post(server, '/withdraw', {
    wallet: signer.address,
    signature: await signer.signTypedData(withdrawalProof(signer.address, timestamp)),
    timestamp,
  });
};

const ADMIN = 'admin-token-for-settlement-tests';
const reconcile = async (server: TestServer) =>
  (await post(server, '/admin/payments/reconcile', {}, { authorization: `Bearer ${ADMIN}` })).json();

const claimOf = (server: TestServer, payer: string) =>
  server.db.get<PaymentClaimRow>('SELECT * FROM payment_claims WHERE payer = ?', [payer.toLowerCase()]);

/** The learning's unlocks: what each was paid. */
const unlocksOf = (server: TestServer, learningId: string) =>
  server.db.all<{ gross_micro: number }>('SELECT gross_micro FROM unlocks WHERE learning_id = ?', [learningId]);

/** Charged once for `c`'s learning at 1 USDC: the payer left with `left`, one unlock, 0.7 credited, the ledger balanced. */
async function chargedOnce(
  server: TestServer,
  c: Awaited<ReturnType<typeof contributor>>,
  payer: PrivateKeyAccount,
  left: bigint,
) {
  expect(await chain.balanceOf(payer.address)).toBe(left);
  expect(await unlocksOf(server, c.learning.id)).toEqual([{ gross_micro: 1_000_000 }]);
  expect(await earnings(server, c.key)).toMatchObject({ pending_balance: 0.7, awaiting_settlement: 0 });
  expect(await checkLedger(server.db)).toEqual([]);
}

type Signed = Awaited<ReturnType<typeof signAuthorization>>;

/** The signed authorization a payment header carries. */
const signedIn = (header: string) => JSON.parse(Buffer.from(header, 'base64').toString('utf8')).payload as Signed;

/** A third party (the facilitator's account) sends `signed` itself, paying more for gas so it is mined first. */
const sendElsewhere = ({ authorization: a, signature }: Signed) =>
  createWalletClient({
    account: privateKeyToAccount(chain.facilitatorKey),
    transport: http(chain.rpcUrl),
  }).writeContract({
    chain: null,
    address: USDC.asset,
    abi: token.abi,
    functionName: 'transferWithAuthorization',
    args: [a.from, a.to, BigInt(a.value), BigInt(a.validAfter), BigInt(a.validBefore), a.nonce, signature],
    gas: 200_000n,
    maxFeePerGas: 100_000_000_000n,
    maxPriorityFeePerGas: 50_000_000_000n,
  });

let chain: Awaited<ReturnType<typeof startLocalChain>>;
beforeAll(async () => {
  chain = await startLocalChain();
});
afterAll(() => chain.close());
// A test that stops mining and fails halfway must not leave the chain stopped for the next.
afterEach(() => chain.mine());

describe('fault 1: signatures without funds never become withdrawable (no facilitator, no chain)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await start();
  });
  afterAll(() => server.stop());

  it('says at start that payments are not being settled', () => {
    expect(server.logs.some((l) => l.includes('x402 payments are NOT being settled'))).toBe(true);
  });

  it('20 never-funded wallets paying $50 each: served, $700 awaiting settlement, $0 withdrawable, /withdraw refuses', async () => {
    const c = await contributor(server, FIFTY_USD);
    for (let i = 0; i < 20; i++) {
      const res = await getUnlock(server, c.learning.id, {
        'x-payment': await pay(server, newWallet(), FIFTY_USD),
      });
      expect(res.status).toBe(200);
    }
    const e = await earnings(server, c.key);
    expect(e).toMatchObject({ pending_balance: 0, awaiting_settlement: 700, can_withdraw: false });
    expect(e.message).toMatch(/awaiting settlement/);
    const byWallet = (await (await fetch(`${server.url}/contributor/${c.wallet.address}`)).json()) as Record<
      string,
      unknown
    >;
    expect(byWallet).toMatchObject({ total_contributor_usd: 700, total_awaiting_settlement_usd: 700 });
    const w = await withdraw(server, c.wallet);
    expect(w.status).toBe(400);
    expect(await w.json()).toMatchObject({ error: 'insufficient balance' });
    const states = await server.db.all<{ state: string }>('SELECT DISTINCT state FROM payment_claims');
    expect(states).toEqual([{ state: 'verified' }]);
    expect(await checkLedger(server.db)).toEqual([]);
    // What the server did before: crediting a share at verification. npm run ledger:check now reports it.
    const unlock = await server.db.get<{ id: string; contributor_micro: number }>(
      'SELECT id, contributor_micro FROM unlocks WHERE learning_id = ? LIMIT 1',
      [c.learning.id],
    );
    await server.db.tx((q) => ledgerStore.post(q, c.accountId, 'accrue', unlock!.contributor_micro, unlock!.id, 0));
    expect((await checkLedger(server.db)).join('\n')).toMatch(
      /earnings credited from an x402 payment that is not settled/,
    );
  });
});

describe('the server settles on chain itself (AXLE_RPC_URL + AXLE_SETTLEMENT_KEY)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await settlingServer(10000);
  });
  afterAll(() => server.stop());

  it('a funded payer settles: USDC moves to payTo, the tx hash is recorded and the share is withdrawable', async () => {
    const c = await contributor(server, 1_000_000);
    const payer = newWallet();
    await chain.mint(payer.address, 3_000_000n);
    const before = await chain.balanceOf(PAY_TO);
    const res = await getUnlock(server, c.learning.id, {
      'x-payment': await pay(server, payer, 1_000_000),
    });
    expect(res.status).toBe(200);
    const receipt = decodePaymentResponseHeader(res.headers.get('x-payment-response')!);
    expect(receipt.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await chain.balanceOf(payer.address)).toBe(2_000_000n);
    expect((await chain.balanceOf(PAY_TO)) - before).toBe(1_000_000n);
    expect(await claimOf(server, payer.address)).toMatchObject({ state: 'settled', tx_hash: receipt.transaction });
    const unlock = await server.db.get<{ tx_hash: string; settlement_path: string }>(
      'SELECT tx_hash, settlement_path FROM unlocks WHERE learning_id = ?',
      [c.learning.id],
    );
    expect(unlock).toEqual({ tx_hash: receipt.transaction, settlement_path: 'chain' });
    expect(await earnings(server, c.key)).toMatchObject({
      pending_balance: 0.7,
      awaiting_settlement: 0,
      can_withdraw: true,
    });
    expect(await checkLedger(server.db)).toEqual([]);
  });

  it('unfunded payers: the settlement reverts, 402 with the reason, nothing served, no share ever', async () => {
    const c = await contributor(server, FIFTY_USD);
    for (let i = 0; i < 5; i++) {
      const payer = newWallet();
      const res = await getUnlock(server, c.learning.id, {
        'x-payment': await pay(server, payer, FIFTY_USD),
      });
      expect(res.status).toBe(402);
      expect(((await res.json()) as { error: string }).error).toMatch(/settlement would revert.*exceeds balance/);
      expect(await claimOf(server, payer.address)).toMatchObject({ state: 'failed', unlock_id: null });
    }
    expect(await earnings(server, c.key)).toMatchObject({
      pending_balance: 0,
      awaiting_settlement: 0,
      can_withdraw: false,
    });
    expect((await withdraw(server, c.wallet)).status).toBe(400);
    // Funded afterwards, the same authorization may be retried (nothing moved the first time).
    const payer = newWallet();
    const header = await pay(server, payer, FIFTY_USD);
    expect((await getUnlock(server, c.learning.id, { 'x-payment': header })).status).toBe(402);
    await chain.mint(payer.address, BigInt(FIFTY_USD));
    expect((await getUnlock(server, c.learning.id, { 'x-payment': header })).status).toBe(200);
    expect(await earnings(server, c.key)).toMatchObject({ pending_balance: 35, can_withdraw: true });
    expect(await checkLedger(server.db)).toEqual([]);
  });

  it('the same authorization raced to 10 requests settles once and serves once', async () => {
    const c = await contributor(server, 1_000_000);
    const payer = newWallet();
    await chain.mint(payer.address, 5_000_000n);
    const header = await pay(server, payer, 1_000_000);
    const statuses = (
      await Promise.all(Array.from({ length: 10 }, () => getUnlock(server, c.learning.id, { 'x-payment': header })))
    ).map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 402)).toHaveLength(9);
    expect(await chain.balanceOf(payer.address)).toBe(4_000_000n);
    expect(await earnings(server, c.key)).toMatchObject({ pending_balance: 0.7 });
  });

  it('two authorizations racing for funds that cover one: both simulate, one reverts on chain and is refused', async () => {
    const c = await contributor(server, 1_000_000);
    const payer = newWallet();
    await chain.mint(payer.address, 1_000_000n);
    // Two learnings: two payments for one learning are never settled side by side (the second is refused, 409).
    const other = await seedLearning(server, {
      contributorAccountId: c.accountId,
      contributorWallet: c.wallet.address,
      currentPriceMicro: 1_000_000,
    });
    const [a, b] = [await pay(server, payer, 1_000_000), await pay(server, payer, 1_000_000)];
    await chain.stopMining();
    const both = Promise.all([
      getUnlock(server, c.learning.id, { 'x-payment': a }),
      getUnlock(server, other.id, { 'x-payment': b }),
    ]);
    while ((await chain.pendingCount()) < 2) await new Promise((r) => setTimeout(r, 20));
    await chain.mine();
    const res = await both;
    // One is served settled. The other reverted on chain (402), its authorization unused and valid: watched.
    expect(res.map((r) => r.status).sort()).toEqual([200, 402]);
    expect(await chain.balanceOf(payer.address)).toBe(0n);
    expect(
      await server.db.all('SELECT state FROM payment_claims WHERE payer = ? ORDER BY state', [
        payer.address.toLowerCase(),
      ]),
    ).toEqual([{ state: 'reverted' }, { state: 'settled' }]);
    expect(await earnings(server, c.key)).toMatchObject({ pending_balance: 0.7, awaiting_settlement: 0 });
    expect(await checkLedger(server.db)).toEqual([]);
  });

  it("one unfunded wallet's refusals are limited per wallet: past the limit 429, before the settlement is simulated", async () => {
    const { perMinute } = LIMITS.accountWrites.walletRefusedPayment;
    // A minute on: the per-address count of this describe's earlier requests is behind.
    server.clock.advance(60_000);
    const c = await contributor(server, 1_000_000);
    const payer = newWallet();
    const send = async () => getUnlock(server, c.learning.id, { 'x-payment': await pay(server, payer, 1_000_000) });
    for (let i = 0; i < perMinute; i++) {
      const refused = await send();
      expect(refused.status).toBe(402);
      expect(((await refused.json()) as { error: string }).error).toMatch(/settlement would revert/);
    }
    const claims = () =>
      server.db.get('SELECT COUNT(*) AS n FROM payment_claims WHERE payer = ?', [payer.address.toLowerCase()]);
    const before = await claims();
    // Funded now, but past the limit: refused at once, nothing claimed, the chain not asked.
    await chain.mint(payer.address, 1_000_000n);
    const limited = await send();
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await claims()).toEqual(before);
    server.clock.advance(60_000);
    expect((await send()).status).toBe(200);
    expect(await chain.balanceOf(payer.address)).toBe(0n);
    expect(await checkLedger(server.db)).toEqual([]);
  });

  it('attack: refusals sent in parallel for many learnings stay within the per-wallet limit; a 429 never uses the authorization', async () => {
    const { perMinute } = LIMITS.accountWrites.walletRefusedPayment;
    server.clock.advance(60_000);
    const c = await contributor(server, 1_000_000);
    const payer = newWallet();
    const learnings = [c.learning];
    while (learnings.length < 2 * perMinute)
      learnings.push(
        await seedLearning(server, {
          contributorAccountId: c.accountId,
          contributorWallet: c.wallet.address,
          currentPriceMicro: 1_000_000,
        }),
      );
    const headers = await Promise.all(learnings.map(() => pay(server, payer, 1_000_000)));
    const statuses = (
      await Promise.all(learnings.map((l, i) => getUnlock(server, l.id, { 'x-payment': headers[i]! })))
    ).map((r) => r.status);
    expect(statuses.filter((s) => s !== 402 && s !== 429)).toEqual([]);
    // Each refusal cost a simulation and left a failed claim: no more than the limit, however many race.
    expect(statuses.filter((s) => s === 402).length).toBeLessThanOrEqual(perMinute);
    const refused = statuses.findIndex((s) => s === 429);
    expect(refused).toBeGreaterThanOrEqual(0);
    // The authorization a 429 answered was never claimed: funded, once the window passed, it pays; and payments
    // that settle give their hit back, so more than the limit of them in a row are all served.
    await chain.mint(payer.address, BigInt((perMinute + 1) * 1_000_000));
    server.clock.advance(60_000);
    expect((await getUnlock(server, learnings[refused]!.id, { 'x-payment': headers[refused]! })).status).toBe(200);
    for (const l of learnings.filter((_, i) => i !== refused).slice(0, perMinute))
      expect((await getUnlock(server, l.id, { 'x-payment': await pay(server, payer, 1_000_000) })).status).toBe(200);
    expect(await chain.balanceOf(payer.address)).toBe(0n);
    expect(await checkLedger(server.db)).toEqual([]);
  });

  it('a settlement that times out is served awaiting settlement; mined later, reconciliation credits it', async () => {
    const impatient = await settlingServer(300);
    try {
      const c = await contributor(impatient, 1_000_000);
      const payer = newWallet();
      await chain.mint(payer.address, 1_000_000n);
      await chain.stopMining();
      const header = await pay(impatient, payer, 1_000_000);
      const res = await getUnlock(impatient, c.learning.id, { 'x-payment': header });
      expect(res.status).toBe(200);
      expect(await claimOf(impatient, payer.address)).toMatchObject({ state: 'submitted' });
      expect(await earnings(impatient, c.key)).toMatchObject({
        pending_balance: 0,
        awaiting_settlement: 0.7,
        can_withdraw: false,
      });
      // Reconciliation leaves a payment alone while its request may still be waiting for the receipt.
      expect(await reconcile(impatient)).toMatchObject({ submitted: 0, settled: 0 });
      impatient.clock.advance(300 + 30_000);
      expect(await reconcile(impatient)).toMatchObject({ mode: 'chain', submitted: 1 });
      await chain.mine();
      expect(await reconcile(impatient)).toEqual({ mode: 'chain', settled: 1, failed: 0, submitted: 0 });
      expect(await claimOf(impatient, payer.address)).toMatchObject({ state: 'settled' });
      expect(await chain.balanceOf(payer.address)).toBe(0n);
      expect(await earnings(impatient, c.key)).toMatchObject({
        pending_balance: 0.7,
        awaiting_settlement: 0,
        can_withdraw: true,
      });
      // Reconciling again changes nothing: a final state stays final.
      expect(await reconcile(impatient)).toEqual({ mode: 'chain', settled: 0, failed: 0, submitted: 0 });
      expect(await checkLedger(impatient.db)).toEqual([]);
    } finally {
      await impatient.stop();
    }
  });
});

describe('signed receipts (offer/receipt) cover settled payments only', () => {
  const receiptIn = (res: Response) =>
    decodePaymentResponseHeader(res.headers.get('payment-response')!).extensions?.['offer-receipt'];

  it('served while settling: no receipt; once it settled, a re-signed send under its payment-identifier has one', async () => {
    const impatient = await settlingServer(300);
    try {
      const c = await contributor(impatient, 1_000_000);
      const payer = newWallet();
      const id = generatePaymentId();
      await chain.mint(payer.address, 1_000_000n);
      await chain.stopMining();
      const res = await paidUnder(impatient, c.learning.id, payer, id);
      expect(res.status).toBe(200);
      expect(await claimOf(impatient, payer.address)).toMatchObject({ state: 'submitted' });
      expect(receiptIn(res)).toBeUndefined();
      // Not settled yet: the id answers what it bought, still without a receipt.
      const early = await paidUnder(impatient, c.learning.id, payer, id);
      expect(early.status).toBe(200);
      expect(receiptIn(early)).toBeUndefined();
      await chain.mine();
      impatient.clock.advance(300 + 30_000);
      expect(await reconcile(impatient)).toEqual({ mode: 'chain', settled: 1, failed: 0, submitted: 0 });
      const later = await paidUnder(impatient, c.learning.id, payer, id);
      expect(later.status).toBe(200);
      expect(receiptIn(later)).toMatchObject({ info: { receipt: { format: 'jws' } } });
      expect(await unlocksOf(impatient, c.learning.id)).toEqual([{ gross_micro: 1_000_000 }]);
      expect(await chain.balanceOf(payer.address)).toBe(0n);
    } finally {
      await impatient.stop();
    }
  });

  it('settled before serving: the answer carries the receipt', async () => {
    const server = await settlingServer(10_000);
    try {
      const c = await contributor(server, 1_000_000);
      const payer = newWallet();
      await chain.mint(payer.address, 1_000_000n);
      const res = await paidUnder(server, c.learning.id, payer, generatePaymentId());
      expect(res.status).toBe(200);
      expect(receiptIn(res)).toMatchObject({ info: { receipt: { format: 'jws' } } });
    } finally {
      await server.stop();
    }
  });
});

describe('a payer who spends the same nonce elsewhere first', () => {
  it('a used authorization is not a payment: reconciliation fails it and the share is never credited', async () => {
    const impatient = await settlingServer(300);
    try {
      const c = await contributor(impatient, 1_000_000);
      const payer = newWallet();
      await chain.mint(payer.address, 1_000_000n);
      const nonce = `0x${'5a'.repeat(32)}` as const;
      const validBefore = nowSec(impatient) + 240n;
      const paying = await signAuthorization(payer, { to: PAY_TO, value: 1_000_000, validBefore, nonce });
      // The same nonce, signed to the payer's accomplice for one micro-USDC.
      const accomplice = newWallet().address;
      const elsewhere = await signAuthorization(payer, { to: accomplice, value: 1, validBefore, nonce });
      await chain.stopMining();
      const res = await getUnlock(impatient, c.learning.id, { 'x-payment': v1Header(paying) });
      expect(res.status).toBe(200);
      expect(await claimOf(impatient, payer.address)).toMatchObject({ state: 'submitted' });
      // The accomplice's transaction, paying more for gas, is mined first; the server's then reverts.
      await sendElsewhere(elsewhere);
      await chain.mine();
      expect(await chain.balanceOf(accomplice)).toBe(1n);
      impatient.clock.advance(300 + 30_000);
      expect(await reconcile(impatient)).toEqual({ mode: 'chain', settled: 0, failed: 1, submitted: 0 });
      expect(await claimOf(impatient, payer.address)).toMatchObject({
        state: 'failed',
        reason: expect.stringMatching(/did not transfer the authorized amount to payTo/),
      });
      expect(await earnings(impatient, c.key)).toMatchObject({ pending_balance: 0, awaiting_settlement: 0 });
      expect(await checkLedger(impatient.db)).toEqual([]);

      // The wallet never paid: signing in is no proof of payment, and its next read is a purchase, settled, not a
      // free repeat of the failed one.
      const challenge = decodePaymentRequiredHeader(
        (await getUnlock(impatient, c.learning.id)).headers.get('payment-required')!,
      ).extensions![SIGN_IN_WITH_X] as SIWxExtension;
      const { chainId, type } = challenge.supportedChains[0]!;
      const proof = await createSIWxPayload(
        { ...challenge.info, chainId, type },
        payer,
        `${impatient.url}/knowledge/${c.learning.id}`,
      );
      const signedIn = await getUnlock(impatient, c.learning.id, { 'sign-in-with-x': encodeSIWxHeader(proof) });
      expect(signedIn.status).toBe(402);
      await chain.mint(payer.address, 1_000_000n);
      const next = await getUnlock(impatient, c.learning.id, { 'x-payment': await pay(impatient, payer, 1_000_000) });
      expect(next.status).toBe(200);
      expect((await next.json())._revenue).toMatchObject({ amount_paid_usd: 1, contributor_earned_usd: 0.7 });
      expect(await chain.balanceOf(payer.address)).toBe(999_999n);
      expect(await earnings(impatient, c.key)).toMatchObject({ pending_balance: 0.7 });
      expect(await checkLedger(impatient.db)).toEqual([]);
    } finally {
      await impatient.stop();
    }
  });
});

describe('a payment served while settling, under a payment-identifier, whose nonce the payer spends elsewhere first', () => {
  it('its id answers nothing once it failed: a re-signed send under it is not served free', async () => {
    const impatient = await settlingServer(300);
    try {
      const c = await contributor(impatient, 1_000_000);
      const payer = newWallet();
      await chain.mint(payer.address, 1_000_000n);
      const id = generatePaymentId();
      const sent = await signedUnder(impatient, c.learning.id, payer, id);
      const { authorization: a } = signedIn(sent);
      const elsewhere = await signAuthorization(payer, {
        to: newWallet().address,
        value: 1,
        validBefore: BigInt(a.validBefore),
        nonce: a.nonce as `0x${string}`,
      });
      await chain.stopMining();
      expect((await getUnlock(impatient, c.learning.id, { 'payment-signature': sent })).status).toBe(200);
      await sendElsewhere(elsewhere);
      await chain.mine();
      impatient.clock.advance(300 + 30_000);
      expect(await reconcile(impatient)).toEqual({ mode: 'chain', settled: 0, failed: 1, submitted: 0 });
      // The payer never paid: a new signature under the id is not answered by that payment for nothing.
      const again = await paidUnder(impatient, c.learning.id, payer, id);
      expect(again.status).toBe(409);
      expect(await again.json()).toMatchObject({ code: 'payment_identifier_conflict' });
      expect(await chain.balanceOf(payer.address)).toBe(999_999n);
      expect(await earnings(impatient, c.key)).toMatchObject({ pending_balance: 0, awaiting_settlement: 0 });
      expect(await checkLedger(impatient.db)).toEqual([]);
    } finally {
      await impatient.stop();
    }
  });
});

describe('the same authorization mined first by someone else, and the chain unreadable after our revert', () => {
  it('is an unknown outcome, not a failure: reconciliation finds it paid us, and the payer is served once', async () => {
    const rpc = await startRpcProxy(chain.rpcUrl);
    const server = await start({ AXLE_RPC_URL: rpc.url, AXLE_SETTLEMENT_KEY: chain.settlementKey });
    try {
      const c = await contributor(server, 1_000_000);
      const payer = newWallet();
      await chain.mint(payer.address, 1_000_000n);
      const sent = await signedUnder(server, c.learning.id, payer, generatePaymentId());
      const header = { 'payment-signature': sent };
      await chain.stopMining();
      const unlocking = getUnlock(server, c.learning.id, header);
      while ((await chain.pendingCount()) < 1) await new Promise((r) => setTimeout(r, 20));
      // Someone who saw it in the mempool sends the same authorization with more gas: it pays us, ours reverts.
      await sendElsewhere(signedIn(sent));
      // The provider then fails the reads that would tell why ours reverted.
      rpc.fail('eth_call', 'eth_getLogs');
      await chain.mine();
      const res = await unlocking;
      expect(res.status).toBe(502);
      expect(await chain.balanceOf(payer.address)).toBe(0n);
      expect(await claimOf(server, payer.address)).toMatchObject({ state: 'submitted', unlock_id: null });
      // Another payment under the id is not taken meanwhile.
      expect((await getUnlock(server, c.learning.id, header)).status).toBe(409);
      rpc.fail();
      server.clock.advance(20_000 + 30_000 + 1);
      expect(await reconcile(server)).toEqual({ mode: 'chain', settled: 1, failed: 0, submitted: 0 });
      const served = await getUnlock(server, c.learning.id, header);
      expect(served.status).toBe(200);
      expect((await served.json())._revenue).toMatchObject({ amount_paid_usd: 1, contributor_earned_usd: 0.7 });
      expect(await chain.balanceOf(payer.address)).toBe(0n);
      expect(await earnings(server, c.key)).toMatchObject({ pending_balance: 0.7, awaiting_settlement: 0 });
      expect(await checkLedger(server.db)).toEqual([]);
    } finally {
      await server.stop();
      await rpc.close();
    }
  });
});

describe('the same header sent again while its settlement is being broadcast', () => {
  it('is not final yet: the authorization is not submitted a second time', async () => {
    const rpc = await startRpcProxy(chain.rpcUrl);
    const server = await settlingServer(10000, rpc.url);
    try {
      const c = await contributor(server, 1_000_000);
      const payer = newWallet();
      await chain.mint(payer.address, 1_000_000n);
      const header = { 'x-payment': await pay(server, payer, 1_000_000) };
      const sent = () =>
        createPublicClient({ transport: http(chain.rpcUrl) }).getTransactionCount({
          address: privateKeyToAccount(chain.settlementKey).address,
          blockTag: 'pending',
        });
      const sentBefore = await sent();
      await chain.stopMining();
      // A slow provider: the settlement is signed and recorded as submitted, its broadcast not answered yet.
      rpc.hold('eth_sendRawTransaction');
      const first = getUnlock(server, c.learning.id, header);
      while (rpc.held() < 1) await new Promise((r) => setTimeout(r, 20));
      expect(await claimOf(server, payer.address)).toMatchObject({ state: 'submitted' });
      const simulated = rpc.seen('eth_estimateGas');
      const second = getUnlock(server, c.learning.id, header);
      // Answered, or simulating the authorization to send it again.
      await Promise.race([
        second,
        (async () => {
          while (rpc.seen('eth_estimateGas') === simulated) await new Promise((r) => setTimeout(r, 20));
        })(),
      ]);
      rpc.release();
      const again = await second;
      expect(again.status).toBe(402);
      expect(((await again.json()) as { error: string }).error).toMatch(/its settlement is not final yet/);
      await chain.mine();
      expect((await first).status).toBe(200);
      expect((await sent()) - sentBefore).toBe(1);
      expect(await chain.balanceOf(payer.address)).toBe(0n);
      expect(await earnings(server, c.key)).toMatchObject({ pending_balance: 0.7, awaiting_settlement: 0 });
      expect(await checkLedger(server.db)).toEqual([]);
    } finally {
      rpc.release();
      await server.stop();
      await rpc.close();
    }
  }, 60_000);
});

describe('a settlement whose broadcast the provider refuses (the settlement account out of gas money, a rate limit)', () => {
  it('is not served: 502, the claim left for reconciliation, which sends it again; the same header is then served once', async () => {
    const rpc = await startRpcProxy(chain.rpcUrl);
    const server = await settlingServer(10000, rpc.url);
    try {
      const c = await contributor(server, 1_000_000);
      const payer = newWallet();
      await chain.mint(payer.address, 1_000_000n);
      const header = { 'x-payment': await pay(server, payer, 1_000_000) };
      rpc.fail('eth_sendRawTransaction');
      const res = await getUnlock(server, c.learning.id, header);
      expect(res.status).toBe(502);
      expect(((await res.json()) as { error: string }).error).toMatch(/outcome unknown/);
      expect(await claimOf(server, payer.address)).toMatchObject({ state: 'submitted', unlock_id: null });
      expect(await unlocksOf(server, c.learning.id)).toEqual([]);
      expect(await chain.balanceOf(payer.address)).toBe(1_000_000n);
      expect(await earnings(server, c.key)).toMatchObject({ pending_balance: 0, awaiting_settlement: 0 });
      // The provider answers again: once no request can be sending it, reconciliation sends it again.
      rpc.fail();
      server.clock.advance(10_000 + 30_000 + 1);
      expect(await reconcile(server)).toEqual({ mode: 'chain', settled: 0, failed: 0, submitted: 1 });
      const served = await getUnlock(server, c.learning.id, header);
      expect(served.status).toBe(200);
      expect((await getUnlock(server, c.learning.id, header)).status).toBe(402);
      await chargedOnce(server, c, payer, 0n);
    } finally {
      await server.stop();
      await rpc.close();
    }
  }, 60_000);
});

describe("one transaction of the payer's own contract using several of its authorizations", () => {
  /** Deploys Batch.sol: a payer's contract making several token calls in one transaction. Its `run`. */
  async function deployBatch() {
    const { abi, bytecode } = batch;
    const wallet = createWalletClient({
      account: privateKeyToAccount(chain.facilitatorKey),
      transport: http(chain.rpcUrl),
    });
    const pub = createPublicClient({ transport: http(chain.rpcUrl) });
    const { contractAddress } = await pub.waitForTransactionReceipt({
      hash: await wallet.deployContract({ chain: null, abi, bytecode }),
    });
    /** Uses each of `signed` in one transaction, paying more for gas so it is mined first. */
    return (signed: Signed[]) =>
      wallet.writeContract({
        chain: null,
        address: contractAddress!,
        abi,
        functionName: 'run',
        args: [
          USDC.asset,
          signed.map(({ authorization: a, signature }) =>
            encodeFunctionData({
              abi: token.abi,
              functionName: 'transferWithAuthorization',
              args: [a.from, a.to, BigInt(a.value), BigInt(a.validAfter), BigInt(a.validBefore), a.nonce, signature],
            }),
          ),
        ],
        gas: 400_000n,
        maxFeePerGas: 100_000_000_000n,
        maxPriorityFeePerGas: 50_000_000_000n,
      });
  }

  it('its one transfer to payTo settles one payment: an authorization it used to pay someone else settles none', async () => {
    const server = await settlingServer(10000);
    try {
      const run = await deployBatch();
      const c = await contributor(server, 1_000_000);
      const other = await seedLearning(server, {
        contributorAccountId: c.accountId,
        contributorWallet: c.wallet.address,
        currentPriceMicro: 1_000_000,
      });
      const payer = newWallet();
      await chain.mint(payer.address, 1_000_001n);
      const validBefore = nowSec(server) + 240n;
      const first = await signAuthorization(payer, { to: PAY_TO, value: 1_000_000, validBefore });
      const second = await signAuthorization(payer, { to: PAY_TO, value: 1_000_000, validBefore });
      // The second's nonce, signed to the payer's accomplice for one micro-USDC.
      const accomplice = newWallet().address;
      const elsewhere = await signAuthorization(payer, {
        to: accomplice,
        value: 1,
        validBefore,
        nonce: second.authorization.nonce as `0x${string}`,
      });
      const received = await chain.balanceOf(PAY_TO);
      await chain.stopMining();
      const both = Promise.all([
        getUnlock(server, c.learning.id, { 'x-payment': v1Header(first) }),
        getUnlock(server, other.id, { 'x-payment': v1Header(second) }),
      ]);
      while ((await chain.pendingCount()) < 2) await new Promise((r) => setTimeout(r, 20));
      // Before the server's two transactions are mined, one transaction uses the first authorization (1 USDC to
      // payTo) and, with the second's nonce, the one to the accomplice: both of the server's then revert.
      await run([first, elsewhere]);
      await chain.mine();
      const res = await both;
      expect((await chain.balanceOf(PAY_TO)) - received).toBe(1_000_000n);
      expect(await chain.balanceOf(accomplice)).toBe(1n);
      expect(res.map((r) => r.status)).toEqual([200, 402]);
      expect(((await res[1]!.json()) as { error: string }).error).toMatch(
        /did not transfer the authorized amount to payTo/,
      );
      expect(
        await server.db.all(
          'SELECT learning_id, state, unlock_id IS NOT NULL AS served FROM payment_claims WHERE payer = ?',
          [payer.address.toLowerCase()],
        ),
      ).toEqual(
        expect.arrayContaining([
          { learning_id: c.learning.id, state: 'settled', served: 1 },
          { learning_id: other.id, state: 'failed', served: 0 },
        ]),
      );
      expect(await unlocksOf(server, other.id)).toEqual([]);
      expect(await earnings(server, c.key)).toMatchObject({ pending_balance: 0.7, awaiting_settlement: 0 });
      expect(await checkLedger(server.db)).toEqual([]);
    } finally {
      await server.stop();
    }
  }, 60_000);
});

describe('a settlement that reverts while its authorization stays unused (the payer spent the balance first)', () => {
  let server: TestServer;
  beforeEach(async () => {
    server = await settlingServer(10000);
  });
  afterEach(() => server.stop());

  /**
   * The payer, holding 1 USDC, sends `headers`; once the server's settlement is broadcast, and before it is mined, the
   * payer moves the USDC away (another authorization of its own, mined first), so the server's transaction reverts.
   */
  async function reverted(learningId: string, payer: PrivateKeyAccount, headers: Record<string, string>) {
    await chain.mint(payer.address, 1_000_000n);
    await chain.stopMining();
    const unlocking = getUnlock(server, learningId, headers);
    while ((await chain.pendingCount()) < 1) await new Promise((r) => setTimeout(r, 20));
    const away = await signAuthorization(payer, {
      to: newWallet().address,
      value: 1_000_000,
      validBefore: nowSec(server) + 240n,
    });
    await sendElsewhere(away);
    await chain.mine();
    const res = await unlocking;
    expect(res.status).toBe(402);
    expect(((await res.json()) as { error: string }).error).toMatch(/settlement failed: transaction .* reverted/);
    expect(await chain.balanceOf(payer.address)).toBe(0n);
    expect(await unlocksOf(server, learningId)).toEqual([]);
  }

  it('under a payment-identifier, mined by a third party once the payer is funded again: the same header is served, charged once', async () => {
    const c = await contributor(server, 1_000_000);
    const payer = newWallet();
    const id = generatePaymentId();
    const sent = await signedUnder(server, c.learning.id, payer, id);
    const header = { 'payment-signature': sent };
    await reverted(c.learning.id, payer, header);
    // Refused, but not final: the claim is watched with its transaction, and the id stays bound to it.
    expect(await claimOf(server, payer.address)).toMatchObject({
      state: 'reverted',
      unlock_id: null,
      tx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    });
    const early = await paidUnder(server, c.learning.id, payer, id);
    expect(early.status).toBe(409);
    expect(await early.json()).toMatchObject({ code: 'payment_in_progress' });
    server.clock.advance(10_000 + 30_000 + 1);
    expect(await reconcile(server)).toEqual({ mode: 'chain', settled: 0, failed: 0, submitted: 1 });
    // Funded again: anyone holding the authorization (it is in the reverted transaction's calldata) sends it.
    await chain.mint(payer.address, 1_000_000n);
    const transaction = await sendElsewhere(signedIn(sent));
    expect(await chain.balanceOf(payer.address)).toBe(0n);
    const served = await getUnlock(server, c.learning.id, header);
    expect(served.status).toBe(200);
    expect(decodePaymentResponseHeader(served.headers.get('payment-response')!).transaction).toBe(transaction);
    expect(await claimOf(server, payer.address)).toMatchObject({ state: 'settled', tx_hash: transaction });
    // A new signature under the id is answered by that payment, not charged.
    await chain.mint(payer.address, 1_000_000n);
    const again = await paidUnder(server, c.learning.id, payer, id);
    expect(again.status).toBe(200);
    expect((await again.json())._revenue).toEqual((await served.json())._revenue);
    expect(await reconcile(server)).toEqual({ mode: 'chain', settled: 0, failed: 0, submitted: 0 });
    await chargedOnce(server, c, payer, 1_000_000n);
  });

  it("under a payment-identifier, never used: 409 until it expires unused by the chain's clock too, then failed once and the retry pays once", async () => {
    const c = await contributor(server, 1_000_000);
    const payer = newWallet();
    const id = generatePaymentId();
    const sent = await signedUnder(server, c.learning.id, payer, id);
    await reverted(c.learning.id, payer, { 'payment-signature': sent });
    await chain.mint(payer.address, 1_000_000n);
    // Past its validBefore by our clock, but not by the chain's: a block could still include it.
    const validBefore = BigInt(signedIn(sent).authorization.validBefore!);
    server.clock.set(Number(validBefore) * 1000 + 3_600_000);
    expect(await reconcile(server)).toEqual({ mode: 'chain', settled: 0, failed: 0, submitted: 1 });
    const late = await paidUnder(server, c.learning.id, payer, id);
    expect(late.status).toBe(409);
    expect(await late.json()).toMatchObject({ code: 'payment_in_progress' });
    // A block timestamped at validBefore, the nonce unused: failed once, the id freed.
    await chain.mineAt(validBefore);
    expect(await reconcile(server)).toEqual({ mode: 'chain', settled: 0, failed: 1, submitted: 0 });
    expect(await claimOf(server, payer.address)).toMatchObject({
      state: 'failed',
      reason: 'the authorization expired before it was settled',
    });
    expect(await reconcile(server)).toEqual({ mode: 'chain', settled: 0, failed: 0, submitted: 0 });
    expect((await paidUnder(server, c.learning.id, payer, id)).status).toBe(200);
    await chargedOnce(server, c, payer, 0n);
  });

  /** The seconds a 409 says to wait: until the chain can be judged past `header`'s validBefore (60 s of skew after it). */
  const untilExpired = (header: string) =>
    Number(signedIn(header).authorization.validBefore) + 60 - Math.floor(server.clock.now() / 1000);

  it('without a payment-identifier: a new signature is refused 409, charged nothing, while the first may be used; used by a third party, the first is served once, charged once', async () => {
    const c = await contributor(server, 1_000_000);
    const payer = newWallet();
    const first = await pay(server, payer, 1_000_000);
    await reverted(c.learning.id, payer, { 'x-payment': first });
    const firstClaim = await claimOf(server, payer.address);
    expect(firstClaim).toMatchObject({ state: 'reverted', unlock_id: null });
    // Refused, the buyer re-signs at once: the first is public and valid, so this one would be a second charge.
    await chain.mint(payer.address, 1_000_000n);
    const second = await pay(server, payer, 1_000_000);
    const refused = await getUnlock(server, c.learning.id, { 'x-payment': second });
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({
      code: 'payment_in_progress',
      error: expect.stringMatching(/may still be settled.*not charged/),
    });
    expect(Number(refused.headers.get('retry-after'))).toBe(untilExpired(first));
    expect(await chain.balanceOf(payer.address)).toBe(1_000_000n);
    expect(
      await server.db.all('SELECT nonce FROM payment_claims WHERE payer = ?', [payer.address.toLowerCase()]),
    ).toEqual([{ nonce: firstClaim!.nonce }]);
    // Later, with its request's wait over, still refused while the first stays unused and valid.
    server.clock.advance(10_000 + 30_000 + 1);
    expect((await getUnlock(server, c.learning.id, { 'x-payment': second })).status).toBe(409);
    // A third party sends the first authorization: the payer is served by sending it again, charged once.
    await sendElsewhere(signedIn(first));
    expect(await chain.balanceOf(payer.address)).toBe(0n);
    const served = await getUnlock(server, c.learning.id, { 'x-payment': first });
    expect(served.status).toBe(200);
    expect((await served.json())._revenue).toMatchObject({ amount_paid_usd: 1, contributor_earned_usd: 0.7 });
    await chargedOnce(server, c, payer, 0n);
    // The second, sent again, is a repeat: free, and never settled.
    await chain.mint(payer.address, 1_000_000n);
    const repeat = await getUnlock(server, c.learning.id, { 'x-payment': second });
    expect(repeat.status).toBe(200);
    expect((await repeat.json())._revenue).toMatchObject({ accrual_capped: true, amount_paid_usd: 0 });
    expect(await chain.balanceOf(payer.address)).toBe(1_000_000n);
    expect(await reconcile(server)).toEqual({ mode: 'chain', settled: 0, failed: 0, submitted: 0 });
    expect(await checkLedger(server.db)).toEqual([]);
  });

  it('without a payment-identifier: once the first expired unused, by the chain too, a new signature pays once', async () => {
    const c = await contributor(server, 1_000_000);
    const payer = newWallet();
    const first = await pay(server, payer, 1_000_000);
    await reverted(c.learning.id, payer, { 'x-payment': first });
    await chain.mint(payer.address, 1_000_000n);
    expect((await getUnlock(server, c.learning.id, { 'x-payment': await pay(server, payer, 1_000_000) })).status).toBe(
      409,
    );
    // Past its validBefore by our clock, not by the chain's: a block could still include the first.
    const validBefore = BigInt(signedIn(first).authorization.validBefore!);
    server.clock.set(Number(validBefore) * 1000 + 3_600_000);
    const early = await getUnlock(server, c.learning.id, { 'x-payment': await pay(server, payer, 1_000_000) });
    expect(early.status).toBe(409);
    expect(early.headers.get('retry-after')).toBe('1');
    // A block timestamped at validBefore with the first unused: it can never be used, so the new payment pays.
    await chain.mineAt(validBefore);
    const paid = await getUnlock(server, c.learning.id, { 'x-payment': await pay(server, payer, 1_000_000) });
    expect(paid.status).toBe(200);
    expect(
      await server.db.get('SELECT state, reason FROM payment_claims WHERE nonce = ?', [
        signedIn(first).authorization.nonce,
      ]),
    ).toEqual({ state: 'failed', reason: 'the authorization expired before it was settled' });
    await chargedOnce(server, c, payer, 0n);
  });
});

describe('a facilitator built from the x402 packages settles on the local chain', () => {
  let server: TestServer;
  let facilitator: Awaited<ReturnType<typeof startFacilitator>>;
  beforeAll(async () => {
    facilitator = await startFacilitator(chain.rpcUrl, chain.facilitatorKey);
    server = await start({
      AXLE_FACILITATOR_URL: facilitator.url,
      AXLE_FACILITATOR_TIMEOUT_MS: '1000',
      AXLE_RPC_URL: chain.rpcUrl,
      AXLE_SETTLEMENT_WAIT_MS: '2000',
    });
  });
  afterAll(async () => {
    await server.stop();
    await facilitator.close();
  });
  // The chain stamps blocks by the wall clock, and authorizations expire by it: our clock, which the tests move
  // forward only, must not fall behind it on a slow run, or an authorization signed for 240 s from our clock is
  // already past its validBefore by the chain's.
  beforeEach(() => {
    server.clock.set(Math.max(server.clock.now(), Date.now()));
  });

  it('a funded payer settles through it; an unfunded one is refused by it', async () => {
    // With the chain to read, nothing is left unreconcilable.
    expect(server.logs.some((l) => l.includes('cannot be reconciled'))).toBe(false);
    const c = await contributor(server, 1_000_000);
    const payer = newWallet();
    await chain.mint(payer.address, 1_000_000n);
    const res = await getUnlock(server, c.learning.id, {
      'x-payment': await pay(server, payer, 1_000_000),
    });
    expect(res.status).toBe(200);
    const { transaction } = decodePaymentResponseHeader(res.headers.get('x-payment-response')!);
    expect(await chain.balanceOf(payer.address)).toBe(0n);
    expect(await claimOf(server, payer.address)).toMatchObject({ state: 'settled', tx_hash: transaction });
    const broke = newWallet();
    const refused = await getUnlock(server, c.learning.id, {
      'x-payment': await pay(server, broke, 1_000_000),
    });
    expect(refused.status).toBe(402);
    expect(((await refused.json()) as { error: string }).error).toMatch(/facilitator refused the payment/);
    // Claimed, then refused before anything moved: given back (failed), as a refused settlement is.
    expect(await claimOf(server, broke.address)).toMatchObject({
      state: 'failed',
      unlock_id: null,
      reason: expect.stringMatching(/facilitator refused the payment/),
    });
    expect(await earnings(server, c.key)).toMatchObject({ pending_balance: 0.7 });
  });

  it('a facilitator that settles and then fails to answer: 502, and the same payment later is served, charged once', async () => {
    const c = await contributor(server, 1_000_000);
    const payer = newWallet();
    await chain.mint(payer.address, 1_000_000n);
    facilitator.override = async (body) => {
      await facilitator.settleForReal(body);
      throw new Error('crashed after broadcasting');
    };
    const header = await pay(server, payer, 1_000_000);
    try {
      const res = await getUnlock(server, c.learning.id, { 'x-payment': header });
      expect(res.status).toBe(502);
      expect(((await res.json()) as { error: string }).error).toMatch(/outcome unknown/);
    } finally {
      facilitator.override = undefined;
    }
    expect(await chain.balanceOf(payer.address)).toBe(0n);
    expect(await claimOf(server, payer.address)).toMatchObject({ state: 'verified', unlock_id: null });
    const settles = facilitator.settles;
    const again = await getUnlock(server, c.learning.id, { 'x-payment': header });
    expect(again.status).toBe(200);
    expect(facilitator.settles).toBe(settles);
    expect(await claimOf(server, payer.address)).toMatchObject({ state: 'settled' });
    expect(await earnings(server, c.key)).toMatchObject({ pending_balance: 0.7, awaiting_settlement: 0 });
    expect(await checkLedger(server.db)).toEqual([]);
  });

  /** A payment under `id` whose /settle runs `settle` and gets no answer back to the server: 502. Its headers. */
  async function unansweredSettle(
    learningId: string,
    payer: ReturnType<typeof newWallet>,
    id: string,
    settle: NonNullable<typeof facilitator.override>,
  ) {
    facilitator.override = settle;
    try {
      const headers = { 'payment-signature': await signedUnder(server, learningId, payer, id) };
      const res = await getUnlock(server, learningId, headers);
      expect(res.status).toBe(502);
      return headers;
    } finally {
      facilitator.override = undefined;
    }
  }

  it('settled, then no answer, under a payment-identifier: the re-signed retry is served that payment, not charged again', async () => {
    const c = await contributor(server, 1_000_000);
    const payer = newWallet();
    await chain.mint(payer.address, 2_000_000n);
    const id = generatePaymentId();
    await unansweredSettle(c.learning.id, payer, id, async (body) => {
      await facilitator.settleForReal(body);
      throw new Error('crashed after broadcasting');
    });
    expect(await chain.balanceOf(payer.address)).toBe(1_000_000n);
    // @x402/fetch retries under the same id with a new authorization: the first payment is what the id bought.
    // Two such retries at once (two instances): each is served it, or told it is in progress.
    const headers = [
      await signedUnder(server, c.learning.id, payer, id),
      await signedUnder(server, c.learning.id, payer, id),
    ];
    const answers = await Promise.all(headers.map((h) => getUnlock(server, c.learning.id, { 'payment-signature': h })));
    expect(answers.map((r) => r.status)).toContain(200);
    for (const r of answers) expect([200, 409]).toContain(r.status);
    const again = await getUnlock(server, c.learning.id, { 'payment-signature': headers[0]! });
    expect(again.status).toBe(200);
    expect(await chain.balanceOf(payer.address)).toBe(1_000_000n);
    const paid = await server.db.all('SELECT id FROM unlocks WHERE learning_id = ? AND gross_micro > 0', [
      c.learning.id,
    ]);
    expect(paid).toHaveLength(1);
    expect(await earnings(server, c.key)).toMatchObject({ pending_balance: 0.7, awaiting_settlement: 0 });
    expect(await checkLedger(server.db)).toEqual([]);
  });

  it.each([
    ['a new signature', false],
    ['a new signature under its payment-identifier', true],
  ])(
    'settled, then no answer, then a search reprices the learning: %s is answered by that payment at what it paid',
    async (_sent, underItsId) => {
      const c = await contributor(server, 1_000_000);
      const payer = newWallet();
      await chain.mint(payer.address, 3_000_000n);
      const id = generatePaymentId();
      const send = async () =>
        underItsId
          ? paidUnder(server, c.learning.id, payer, id)
          : getUnlock(server, c.learning.id, {
              'x-payment': await pay(
                server,
                payer,
                (await learningsStore.byId(server.db, c.learning.id))!.currentPriceMicro,
              ),
            });
      facilitator.override = async (body) => {
        await facilitator.settleForReal(body);
        throw new Error('crashed after broadcasting');
      };
      try {
        expect((await send()).status).toBe(502);
      } finally {
        facilitator.override = undefined;
      }
      expect(await chain.balanceOf(payer.address)).toBe(2_000_000n);
      // A search reprices it to 2 USDC; the buyer sends again once the 402 that showed 1 USDC is no longer valid.
      await learningsStore.reprice(server.db, c.learning.id, 2_000_000, server.clock.now());
      server.clock.advance(300_000 + 1);
      const res = await send();
      expect(res.status).toBe(200);
      expect((await res.json())._revenue).toMatchObject({ amount_paid_usd: 1, contributor_earned_usd: 0.7 });
      expect(await chain.balanceOf(payer.address)).toBe(2_000_000n);
      expect(await unlocksOf(server, c.learning.id)).toEqual([{ gross_micro: 1_000_000 }]);
      expect(await earnings(server, c.key)).toMatchObject({ pending_balance: 0.7, awaiting_settlement: 0 });
      expect(await checkLedger(server.db)).toEqual([]);
    },
  );

  it('broadcast, then no answer, under a payment-identifier: 409 while it is not mined, however late; mined, the retry is served it, charged once', async () => {
    const c = await contributor(server, 1_000_000);
    const payer = newWallet();
    await chain.mint(payer.address, 2_000_000n);
    const id = generatePaymentId();
    // The facilitator broadcasts (the chain not mining) and fails before answering.
    await chain.stopMining();
    let settled: Promise<SettleResponse> | undefined;
    const settles = facilitator.settles;
    await unansweredSettle(c.learning.id, payer, id, async (body) => {
      settled = facilitator.settleForReal(body);
      while ((await chain.pendingCount()) < 1) await new Promise((r) => setTimeout(r, 20));
      throw new Error('crashed after broadcasting');
    });
    const resend = () => paidUnder(server, c.learning.id, payer, id);
    // While it may still be mined, also once no request of this server can be settling it: nothing more is charged.
    for (const wait of [0, 2000 + 30_000 + 1]) {
      server.clock.advance(wait);
      const early = await resend();
      expect(early.status).toBe(409);
      expect(await early.json()).toMatchObject({ code: 'payment_in_progress' });
      expect(facilitator.settles).toBe(settles + 1);
      expect(await chain.pendingCount()).toBe(1);
      expect(await chain.balanceOf(payer.address)).toBe(2_000_000n);
      expect(await unlocksOf(server, c.learning.id)).toEqual([]);
      expect(await earnings(server, c.key)).toMatchObject({ pending_balance: 0, awaiting_settlement: 0 });
    }
    await chain.mine();
    const { transaction } = await settled!;
    const served = await resend();
    expect(served.status).toBe(200);
    expect(decodePaymentResponseHeader(served.headers.get('payment-response')!).transaction).toBe(transaction);
    expect((await resend()).status).toBe(200);
    expect(facilitator.settles).toBe(settles + 1);
    await chargedOnce(server, c, payer, 1_000_000n);
  });

  it('broadcast, then answered success:false (its receipt wait ran out), under a payment-identifier: 502 and 409 while it may be mined; mined, reconciled once, the retry is served it, charged once', async () => {
    const c = await contributor(server, 1_000_000);
    const payer = newWallet();
    await chain.mint(payer.address, 2_000_000n);
    const id = generatePaymentId();
    const settles = facilitator.settles;
    const resend = () => paidUnder(server, c.learning.id, payer, id);
    // The facilitator broadcasts (the chain not mining), its receipt wait runs out and it answers success:false.
    await chain.stopMining();
    facilitator.receiptTimeoutMs = 200;
    let res: Response;
    try {
      res = await resend();
    } finally {
      facilitator.receiptTimeoutMs = undefined;
    }
    expect(await chain.pendingCount()).toBe(1);
    expect(res.status).toBe(502);
    expect(((await res.json()) as { error: string }).error).toMatch(/outcome unknown/);
    // Its failure is not final while the transaction may still be mined: nothing is failed, freed or charged again.
    for (const wait of [0, 2000 + 30_000 + 1]) {
      server.clock.advance(wait);
      expect(await reconcile(server)).toMatchObject({ failed: 0 });
      const early = await resend();
      expect(early.status).toBe(409);
      expect(await early.json()).toMatchObject({ code: 'payment_in_progress' });
      expect(facilitator.settles).toBe(settles + 1);
      expect(await chain.pendingCount()).toBe(1);
      expect(await chain.balanceOf(payer.address)).toBe(2_000_000n);
      expect(await unlocksOf(server, c.learning.id)).toEqual([]);
    }
    await chain.mine();
    expect(await reconcile(server)).toEqual({ mode: 'facilitator', settled: 1, failed: 0, submitted: 0 });
    const claim = await claimOf(server, payer.address);
    expect(claim).toMatchObject({ state: 'settled', unlock_id: null });
    const served = await resend();
    expect(served.status).toBe(200);
    expect(decodePaymentResponseHeader(served.headers.get('payment-response')!).transaction).toBe(claim!.tx_hash);
    expect((await resend()).status).toBe(200);
    expect(await reconcile(server)).toEqual({ mode: 'facilitator', settled: 0, failed: 0, submitted: 0 });
    expect(facilitator.settles).toBe(settles + 1);
    await chargedOnce(server, c, payer, 1_000_000n);
  });

  it('settled, then our settle call times out, under a payment-identifier: reconciled once, the retry is served it, not charged again', async () => {
    const c = await contributor(server, 1_000_000);
    const payer = newWallet();
    await chain.mint(payer.address, 2_000_000n);
    const id = generatePaymentId();
    const settles = facilitator.settles;
    // The facilitator settles (mined at once), then holds its answer until this server's call to it has timed out.
    let settled: Promise<SettleResponse> | undefined;
    let answer = () => {};
    const held = new Promise<void>((r) => {
      answer = r;
    });
    let headers: Record<string, string>;
    try {
      headers = await unansweredSettle(c.learning.id, payer, id, async (body) => {
        settled = facilitator.settleForReal(body);
        await held;
        return settled;
      });
    } finally {
      answer();
    }
    expect(server.logs.some((l) => l.includes('Facilitator settle request timed out'))).toBe(true);
    const { transaction } = await settled!;
    expect(await chain.balanceOf(payer.address)).toBe(1_000_000n);
    expect(await claimOf(server, payer.address)).toMatchObject({ state: 'verified', unlock_id: null });
    // Once no request can be settling it, reconciliation finds it settled on chain; it is booked when sent again.
    server.clock.advance(2000 + 30_000 + 1);
    expect(await reconcile(server)).toEqual({ mode: 'facilitator', settled: 1, failed: 0, submitted: 0 });
    expect(await claimOf(server, payer.address)).toMatchObject({
      state: 'settled',
      tx_hash: transaction,
      unlock_id: null,
    });
    expect(await unlocksOf(server, c.learning.id)).toEqual([]);
    // Re-signed under the id, then the first header again: both are answered by the settled payment.
    const resigned = await getUnlock(server, c.learning.id, {
      'payment-signature': await signedUnder(server, c.learning.id, payer, id),
    });
    expect(resigned.status).toBe(200);
    expect(decodePaymentResponseHeader(resigned.headers.get('payment-response')!).transaction).toBe(transaction);
    const same = await getUnlock(server, c.learning.id, headers);
    expect(same.status).toBe(200);
    expect((await same.json())._revenue).toEqual((await resigned.json())._revenue);
    expect(await reconcile(server)).toEqual({ mode: 'facilitator', settled: 0, failed: 0, submitted: 0 });
    expect(facilitator.settles).toBe(settles + 1);
    await chargedOnce(server, c, payer, 1_000_000n);
  }, 60_000);

  it("no answer and nothing sent, under a payment-identifier: 409 until the authorization expires unused by the chain's clock too, then the retry pays once", async () => {
    const c = await contributor(server, 1_000_000);
    const payer = newWallet();
    await chain.mint(payer.address, 2_000_000n);
    const id = generatePaymentId();
    await unansweredSettle(c.learning.id, payer, id, async () => {
      throw new Error('crashed before broadcasting');
    });
    const resend = () => paidUnder(server, c.learning.id, payer, id);
    // The facilitator holds the first authorization, and may still submit it: the id's payment is in progress, also
    // once no request of this server can be settling it.
    for (const wait of [0, 2000 + 30_000 + 1]) {
      server.clock.advance(wait);
      const early = await resend();
      expect(early.status).toBe(409);
      expect(await early.json()).toMatchObject({ code: 'payment_in_progress' });
    }
    // Past its validBefore by our clock, long past, but not by the chain's: a block could still include it.
    const { authorization } = JSON.parse((await claimOf(server, payer.address))!.payload!) as {
      authorization: { validBefore: string };
    };
    const validBefore = BigInt(authorization.validBefore);
    server.clock.set(Number(validBefore) * 1000 + 3_600_000);
    expect(await reconcile(server)).toEqual({ mode: 'facilitator', settled: 0, failed: 0, submitted: 1 });
    const late = await resend();
    expect(late.status).toBe(409);
    expect(await late.json()).toMatchObject({ code: 'payment_in_progress' });
    // A block timestamped at validBefore, the nonce unused: it can no longer move anything. Failed once, the id is
    // freed and this send pays.
    await chain.mineAt(validBefore);
    expect(await reconcile(server)).toEqual({ mode: 'facilitator', settled: 0, failed: 1, submitted: 0 });
    expect(await claimOf(server, payer.address)).toMatchObject({
      state: 'failed',
      reason: 'the authorization expired before it was settled',
    });
    expect((await resend()).status).toBe(200);
    expect(await chain.balanceOf(payer.address)).toBe(1_000_000n);
    const paid = await server.db.all('SELECT id FROM unlocks WHERE learning_id = ? AND gross_micro > 0', [
      c.learning.id,
    ]);
    expect(paid).toHaveLength(1);
    expect(await checkLedger(server.db)).toEqual([]);
  });

  it('a facilitator answering success for a transaction that reverted is not believed', async () => {
    const c = await contributor(server, 1_000_000);
    const payer = newWallet();
    await chain.mint(payer.address, 1_000_000n);
    // The lie: it submits a transfer the payer cannot cover (a reverted tx) and reports success for it.
    const liar = newWallet();
    facilitator.override = async () => {
      const w = createWalletClient({
        account: privateKeyToAccount(chain.facilitatorKey),
        transport: http(chain.rpcUrl),
      });
      const hash = await w.sendTransaction({
        chain: null,
        to: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
        data: '0xa9059cbb0000000000000000000000000000000000000000000000000000000000000001000000000000000000000000000000000000000000000000000000174876e800',
        gas: 100_000n,
      });
      return { success: true, transaction: hash, network: 'eip155:8453', payer: liar.address };
    };
    try {
      const res = await getUnlock(server, c.learning.id, {
        'x-payment': await pay(server, payer, 1_000_000),
      });
      expect(res.status).toBe(402);
      expect(((await res.json()) as { error: string }).error).toMatch(
        /facilitator reported success but transaction .* reverted/,
      );
    } finally {
      facilitator.override = undefined;
    }
    // Refused, not final: the facilitator still holds the authorization, unused and valid, and may yet submit it.
    expect(await claimOf(server, payer.address)).toMatchObject({ state: 'reverted', unlock_id: null });
    server.clock.advance(2000 + 30_000 + 1);
    expect(await reconcile(server)).toEqual({ mode: 'facilitator', settled: 0, failed: 0, submitted: 1 });
    expect(await chain.balanceOf(payer.address)).toBe(1_000_000n);
    expect(await earnings(server, c.key)).toMatchObject({ pending_balance: 0, awaiting_settlement: 0 });
    expect(await checkLedger(server.db)).toEqual([]);
  });

  it("a facilitator answering success with another payment's transaction is not believed", async () => {
    const c = await contributor(server, 1_000_000);
    const other = await seedLearning(server, {
      contributorAccountId: c.accountId,
      contributorWallet: c.wallet.address,
      currentPriceMicro: 1_000_000,
    });
    const payer = newWallet();
    await chain.mint(payer.address, 2_000_000n);
    const first = await getUnlock(server, c.learning.id, { 'x-payment': await pay(server, payer, 1_000_000) });
    expect(first.status).toBe(200);
    const { transaction } = decodePaymentResponseHeader(first.headers.get('x-payment-response')!);
    // The lie: the payer's first payment (it paid payTo the same amount) answered for the second.
    facilitator.override = async () => ({ success: true, transaction, network: 'eip155:8453', payer: payer.address });
    let res: Response;
    try {
      res = await getUnlock(server, other.id, { 'x-payment': await pay(server, payer, 1_000_000) });
    } finally {
      facilitator.override = undefined;
    }
    expect(res.status).toBe(402);
    expect(((await res.json()) as { error: string }).error).toMatch(
      /facilitator reported success but transaction .* did not transfer the authorized amount to payTo/,
    );
    // Unused and valid, the authorization is held by the facilitator: watched, not final.
    expect(
      await server.db.get('SELECT state, unlock_id FROM payment_claims WHERE learning_id = ?', [other.id]),
    ).toEqual({ state: 'reverted', unlock_id: null });
    expect(await unlocksOf(server, other.id)).toEqual([]);
    expect(await chain.balanceOf(payer.address)).toBe(1_000_000n);
    expect(await earnings(server, c.key)).toMatchObject({ pending_balance: 0.7, awaiting_settlement: 0 });
    expect(await checkLedger(server.db)).toEqual([]);
  });
});

/** The headers of a payment by `payer` for the learning, signed against `server`'s 402. */
type Sign = (server: TestServer, learningId: string, payer: PrivateKeyAccount) => Promise<Record<string, string>>;

/** A v1 payment, without a payment-identifier. */
const plain: Sign = async (server, _learningId, payer) => ({ 'x-payment': await pay(server, payer, 1_000_000) });

/** A v2 payment under the payment-identifier `id`, newly signed each time. */
const underId =
  (id: string): Sign =>
  async (server, learningId, payer) => ({ 'payment-signature': await signedUnder(server, learningId, payer, id) });

/**
 * A $1 learning and a payer holding `funds`, whose payment (`sign`) a built server process on the learning's data dir
 * settles, waiting up to a minute for the receipt. The process is killed once the settlement is broadcast (the chain
 * not mining); the settlement is mined, unless `mined` is false (then it stays in the pool, the chain not mining);
 * and the data dir is started again, reconciled past the request's receipt wait.
 */
async function killedMidSettlement(opts: { funds: bigint; sign: Sign; mined?: boolean }) {
  const chainEnv = { AXLE_RPC_URL: chain.rpcUrl, AXLE_SETTLEMENT_KEY: chain.settlementKey, AXLE_ADMIN_TOKEN: ADMIN };
  const first = await start(chainEnv);
  const c = await contributor(first, 1_000_000);
  const payer = newWallet();
  await chain.mint(payer.address, opts.funds);
  const headers = await opts.sign(first, c.learning.id, payer);
  await first.stop({ keepData: true });

  const proc = spawn(process.execPath, [fileURLToPath(new URL('../dist/main.js', import.meta.url))], {
    env: serverProcessEnv(first.dataDir, { ...chainEnv, AXLE_SETTLEMENT_WAIT_MS: '60000' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const url = await listeningUrl(proc);
  await chain.stopMining();
  const pending = fetch(`${url}/knowledge/${c.learning.id}`, { headers }).catch(() => null);
  while ((await chain.pendingCount()) < 1) await new Promise((r) => setTimeout(r, 20));
  proc.kill('SIGKILL');
  expect(await pending).toBeNull();
  if (opts.mined !== false) await chain.mine();
  const server = await startTestServer(
    { AXLE_CUSTODIAL_WITHDRAWALS: 'true', ...chainEnv },
    { dataDir: first.dataDir, clock: new ManualClock(Date.now()) },
  );
  server.clock.advance(20_000 + 30_000 + 1);
  await reconcile(server);
  return { server, c, payer, headers };
}

describe('a kill between the settlement being submitted and the unlock being recorded', () => {
  it('after restart the payment is reconciled as settled and the same header is served once, charged once', async () => {
    const { server, c, payer, headers } = await killedMidSettlement({ funds: 1_000_000n, sign: plain });
    try {
      const claim = await claimOf(server, payer.address);
      expect(claim).toMatchObject({ state: 'settled', unlock_id: null });
      const res = await getUnlock(server, c.learning.id, headers);
      expect(res.status).toBe(200);
      expect(decodePaymentResponseHeader(res.headers.get('x-payment-response')!).transaction).toBe(claim!.tx_hash);
      expect((await getUnlock(server, c.learning.id, headers)).status).toBe(402);
      expect(await chain.balanceOf(payer.address)).toBe(0n);
      expect(await earnings(server, c.key)).toMatchObject({ pending_balance: 0.7, awaiting_settlement: 0 });
      expect(await checkLedger(server.db)).toEqual([]);
    } finally {
      await server.stop();
    }
  });

  it('not mined yet: the same header is refused as not final and charges nothing; mined, it is served once', async () => {
    const { server, c, payer, headers } = await killedMidSettlement({ funds: 1_000_000n, sign: plain, mined: false });
    try {
      expect(await claimOf(server, payer.address)).toMatchObject({ state: 'submitted', unlock_id: null });
      const early = await getUnlock(server, c.learning.id, headers);
      expect(early.status).toBe(402);
      expect(((await early.json()) as { error: string }).error).toMatch(/its settlement is not final yet/);
      expect(await chain.pendingCount()).toBe(1);
      expect(await chain.balanceOf(payer.address)).toBe(1_000_000n);
      expect(await unlocksOf(server, c.learning.id)).toEqual([]);
      await chain.mine();
      const res = await getUnlock(server, c.learning.id, headers);
      expect(res.status).toBe(200);
      expect((await getUnlock(server, c.learning.id, headers)).status).toBe(402);
      expect(await unlocksOf(server, c.learning.id)).toEqual([{ gross_micro: 1_000_000 }]);
      expect(await chain.balanceOf(payer.address)).toBe(0n);
      expect(await earnings(server, c.key)).toMatchObject({ pending_balance: 0.7, awaiting_settlement: 0 });
      expect(await checkLedger(server.db)).toEqual([]);
    } finally {
      await server.stop();
    }
  });
});

describe('a kill after settling, then the buyer re-signs (a new authorization, no payment-identifier)', () => {
  it('the new payment is not charged: it is answered by the settled payment, and later as a repeat', async () => {
    const { server, c, payer } = await killedMidSettlement({ funds: 2_000_000n, sign: plain });
    try {
      const claim = await claimOf(server, payer.address);
      expect(claim).toMatchObject({ state: 'settled', unlock_id: null });
      const resigned = await pay(server, payer, 1_000_000);
      const res = await getUnlock(server, c.learning.id, { 'x-payment': resigned });
      expect(res.status).toBe(200);
      expect(decodePaymentResponseHeader(res.headers.get('x-payment-response')!).transaction).toBe(claim!.tx_hash);
      const repeat = await getUnlock(server, c.learning.id, { 'x-payment': resigned });
      expect(repeat.status).toBe(200);
      expect(((await repeat.json()) as { _revenue: object })._revenue).toMatchObject({ accrual_capped: true });
      expect(await chain.balanceOf(payer.address)).toBe(1_000_000n);
      expect(await earnings(server, c.key)).toMatchObject({ pending_balance: 0.7, awaiting_settlement: 0 });
      expect(await checkLedger(server.db)).toEqual([]);
    } finally {
      await server.stop();
    }
  });
});

describe('a kill between claiming a payment under a payment-identifier and booking it', () => {
  it('after restart a retry under the id (same header or re-signed) is served the settled payment, charged once, not 409 forever', async () => {
    const id = generatePaymentId();
    const { server, c, payer, headers } = await killedMidSettlement({ funds: 1_000_000n, sign: underId(id) });
    try {
      const claim = await claimOf(server, payer.address);
      expect(claim).toMatchObject({ state: 'settled', unlock_id: null });
      // The client signs again under the same id: the settled payment is what it bought; the new one is not charged.
      const resigned = await getUnlock(server, c.learning.id, await underId(id)(server, c.learning.id, payer));
      expect(resigned.status).toBe(200);
      expect(decodePaymentResponseHeader(resigned.headers.get('payment-response')!).transaction).toBe(claim!.tx_hash);
      const revenue = (await resigned.json())._revenue;
      // The first header sent again replays that unlock.
      const same = await getUnlock(server, c.learning.id, headers);
      expect(same.status).toBe(200);
      expect((await same.json())._revenue).toEqual(revenue);
      await chargedOnce(server, c, payer, 0n);
    } finally {
      await server.stop();
    }
  });

  it.each([
    ['the same header', false],
    ['a new signature', true],
  ])(
    'its settlement not mined yet, %s under the id: 409, nothing charged or booked; mined, served and booked once',
    async (_sent, resigned) => {
      const id = generatePaymentId();
      const { server, c, payer, headers } = await killedMidSettlement({
        funds: 2_000_000n,
        sign: underId(id),
        mined: false,
      });
      const send = async () =>
        getUnlock(server, c.learning.id, resigned ? await underId(id)(server, c.learning.id, payer) : headers);
      try {
        const claim = await claimOf(server, payer.address);
        expect(claim).toMatchObject({ state: 'submitted', unlock_id: null });
        // While it may still be mined, and however long it waits in the pool, nothing more is sent, claimed or booked.
        for (const wait of [0, 60_000]) {
          server.clock.advance(wait);
          const early = await send();
          expect(early.status).toBe(409);
          expect(await early.json()).toMatchObject({ code: 'payment_in_progress' });
          expect(await chain.pendingCount()).toBe(1);
          expect(await chain.balanceOf(payer.address)).toBe(2_000_000n);
          expect(
            await server.db.all('SELECT nonce FROM payment_claims WHERE payer = ?', [payer.address.toLowerCase()]),
          ).toEqual([{ nonce: claim!.nonce }]);
          expect(await unlocksOf(server, c.learning.id)).toEqual([]);
          expect(await earnings(server, c.key)).toMatchObject({ pending_balance: 0, awaiting_settlement: 0 });
        }
        await chain.mine();
        const served = await send();
        expect(served.status).toBe(200);
        expect(decodePaymentResponseHeader(served.headers.get('payment-response')!).transaction).toBe(claim!.tx_hash);
        const replayed = await send();
        expect(replayed.status).toBe(200);
        expect((await replayed.json())._revenue).toEqual((await served.json())._revenue);
        await chargedOnce(server, c, payer, 1_000_000n);
      } finally {
        await server.stop();
      }
    },
  );
});

describe('the chain reader (reconciliation)', () => {
  it('an unused authorization is expired once a block is timestamped past its validBefore and our clock is past it by more than the skew', async () => {
    const reader = chainReader({ rpcUrl: chain.rpcUrl });
    const validBefore = BigInt(Math.floor(Date.now() / 1000) + 240);
    const signed = await signAuthorization(newWallet(), { to: PAY_TO, value: 1_000_000, validBefore });
    const open = { authorization: signed.authorization, signature: signed.signature, txHash: null };
    const past = (seconds: number) =>
      reader.status(open as Parameters<typeof reader.status>[0], (Number(validBefore) + seconds) * 1000);
    // Our clock alone, an hour past it: the chain's latest block is before it, so a block could still include it.
    expect(await past(3600)).toEqual({ state: 'submitted' });
    await chain.mineAt(validBefore);
    // The chain past it: not yet by our clock a second past it (its blocks may lag or lead it), then expired.
    expect(await past(1)).toEqual({ state: 'submitted' });
    expect(await past(3600)).toEqual({ state: 'failed', reason: 'the authorization expired before it was settled' });
  });

  /** A funded payer's authorization, and a facilitator submitting it (its answer lost): mined in the next block. */
  async function usedOnChain() {
    const payer = newWallet();
    await chain.mint(payer.address, 1_000_000n);
    const signed = await signAuthorization(payer, {
      to: PAY_TO,
      value: 1_000_000,
      validBefore: BigInt(Math.floor(Date.now() / 1000) + 240),
    });
    const { v, r, s, yParity } = parseSignature(signed.signature);
    const a = signed.authorization;
    const hash = await createWalletClient({
      account: privateKeyToAccount(chain.facilitatorKey),
      transport: http(chain.rpcUrl),
    }).writeContract({
      chain: null,
      address: USDC.asset as `0x${string}`,
      abi: eip3009Abi,
      functionName: 'transferWithAuthorization',
      args: [
        a.from as `0x${string}`,
        a.to as `0x${string}`,
        BigInt(a.value!),
        BigInt(a.validAfter!),
        BigInt(a.validBefore!),
        a.nonce as `0x${string}`,
        Number(v ?? BigInt(yParity + 27)),
        r,
        s,
      ],
    });
    await createPublicClient({ transport: http(chain.rpcUrl) }).waitForTransactionReceipt({ hash });
    expect(await chain.balanceOf(payer.address)).toBe(0n);
    const open = { authorization: signed.authorization, signature: signed.signature, txHash: null };
    return { open: open as Parameters<ReturnType<typeof chainReader>['status']>[0], hash };
  }

  it('finds the transfer that used an authorization mined seconds after its last look, not "used without paying"', async () => {
    const reader = chainReader({ rpcUrl: chain.rpcUrl });
    // One payment reconciled (its transaction found by its AuthorizationUsed log)...
    const first = await usedOnChain();
    expect(await reader.status(first.open, Date.now())).toEqual({ state: 'settled', txHash: first.hash });
    // ...and another, used on chain a moment later, reconciled right after it.
    const second = await usedOnChain();
    expect(await reader.status(second.open, Date.now())).toEqual({ state: 'settled', txHash: second.hash });
  });
});
