import { randomBytes } from 'node:crypto';
import { API_KEY_SCOPES, CURRENT_TOS_VERSION } from '@axle/sdk';
import type { PrivateKeyAccount } from 'viem';
import { expect } from 'vitest';
import { findOrCreateAccount } from '../src/services/accounts.js';
import { createKey } from '../src/services/api-keys.js';
import { openSettlement } from '../src/services/ledger.js';
import { createPayouts } from '../src/services/payouts.js';
import { createLogger } from '../src/logger.js';
import { localPayoutSender } from '../src/payments/payout-sender.js';
import { createJwtService, loadJwtSecret } from '../src/services/jwt.js';
import { accountsStore } from '../src/store/accounts.js';
import { creditsStore } from '../src/store/credits.js';
import type { Queryable } from '../src/store/queryable.js';
import { walletProof } from '../src/services/wallets.js';
import { walletsStore } from '../src/store/wallets.js';
import { learningsStore, type NewLearning } from '../src/store/learnings.js';
import { termsStore } from '../src/store/terms.js';
import { USDC } from '../src/payments/x402-requirements.js';
import type { TestServer } from '../../../test/support/server.js';
import { post } from '../../../test/support/identity.js';
import { ledgerCheck } from '../src/scripts/ledger-check.js';
import { newLearning } from './learning-fixture.js';
import type { ProcessorStandIn } from './processor-standin.js';

/**
 * An account with a key (every scope, payout included), optionally accepted terms, and `credits` unlock credits
 * bought for `creditValueMicro` in all (by default at the Starter pack's $0.10 a credit), recorded as a purchase.
 */
export async function newBuyer(
  server: TestServer,
  opts: { credits?: number; creditValueMicro?: number; terms?: boolean; email?: string } = {},
) {
  const now = server.clock.now();
  return server.db.tx(async (q) => {
    const account = await findOrCreateAccount(
      q,
      opts.email ?? `buyer-${randomBytes(4).toString('hex')}@example.com`,
      now,
    );
    const { api_key } = await createKey(q, account.id, { scopes: API_KEY_SCOPES }, now);
    if (opts.credits) {
      const value = opts.creditValueMicro ?? opts.credits * 100_000;
      await creditsStore.add(q, account.id, opts.credits, 0, value, now);
      await boughtCredits(q, account.id, value, opts.credits, now);
    }
    if (opts.terms)
      await termsStore.insert(q, {
        account_id: account.id,
        version: CURRENT_TOS_VERSION,
        accepted_at: now,
        via: 'jwt',
        audit_ref: 'aud_test',
      });
    return { accountId: account.id, key: api_key };
  });
}

/**
 * A purchase of `unlocks` credits for `amountMicro` by `accountId` (an account is made for an id that has none): the
 * money ledger:check holds credit unlocks against. Adds no credits; a test booking key unlocks itself needs only this.
 */
export async function boughtCredits(q: Queryable, accountId: string, amountMicro: number, unlocks = 0, now = 0) {
  if (!(await accountsStore.byId(q, accountId)))
    await accountsStore.insertOrGet(q, { id: accountId, email: `${accountId}@example.com`, created_at: now });
  await creditsStore.insertPurchase(q, {
    id: `pur_${randomBytes(6).toString('hex')}`,
    account_id: accountId,
    pack_id: 'starter',
    amount_micro: amountMicro,
    queries_added: 0,
    unlocks_added: unlocks,
    checkout_session_id: `cs_seeded_${randomBytes(6).toString('hex')}`,
    created_at: now,
    payment_intent: null,
    reversed_cents: 0,
    reversed_unlocks: 0,
    reversed_queries: 0,
    revoked_unlocks: 0,
  });
}

// viem and @x402/evm load in the helpers that sign, so a file that only seeds accounts and learnings does not load them.

/** An account with terms accepted, a linked wallet and owned earnings from a real unlock at `priceMicro`. */
export async function earner(server: TestServer, priceMicro: number) {
  const { generatePrivateKey, privateKeyToAccount } = await import('viem/accounts');
  const wallet = privateKeyToAccount(generatePrivateKey());
  const owner = await newBuyer(server, { terms: true });
  await walletsStore.link(server.db, owner.accountId, wallet.address);
  const l = await seedLearning(server, { contributorAccountId: owner.accountId, currentPriceMicro: priceMicro });
  // A credit bought for the price, so the unlock books all of it.
  const buyer = await newBuyer(server, { credits: 1, creditValueMicro: priceMicro });
  expect((await getUnlock(server, l.id, { 'x-api-key': buyer.key })).status).toBe(200);
  return { ...owner, wallet };
}

/** An earner whose payout account is linked and onboarded at the processor stand-in, ready for card payouts. */
export async function onboardedEarner(server: TestServer, standIn: ProcessorStandIn, priceMicro: number) {
  const e = await earner(server, priceMicro);
  const link = (await (await post(server, '/account/payout-account', {}, { 'x-api-key': e.key })).json()) as {
    payout_account_id: string;
  };
  standIn.completeOnboarding(link.payout_account_id);
  return { ...e, destination: link.payout_account_id };
}

/**
 * `npm run ledger:check` as the operator runs it on the data dir's database (`env` may name another, such as
 * AXLE_DATABASE_URL), asking the processor stand-in for its own list of transfers.
 */
export async function ledgerCheckWithProcessor(
  dataDir: string,
  standIn: ProcessorStandIn,
  env: Record<string, string> = {},
) {
  const lines: string[] = [];
  const code = await ledgerCheck(
    {
      AXLE_DATA_DIR: dataDir,
      AXLE_PROCESSOR_SECRET_KEY: standIn.secretKey,
      AXLE_PROCESSOR_API_URL: standIn.url,
      ...env,
    },
    (l) => lines.push(l),
  );
  return {
    code,
    report: JSON.parse(lines[0]!) as { ok: boolean; problems: string[]; processor_transfers_checked: number },
  };
}

/** A $1 card withdrawal's settlement (the debit), opened by a request whose instance died before it sent the transfer. */
export const openedUnsent = (server: TestServer, e: Awaited<ReturnType<typeof onboardedEarner>>) =>
  server.db.tx((q) =>
    openSettlement(q, {
      holder: e.accountId,
      wallet: e.wallet.address,
      rail: 'processor',
      amountMicro: 1_000_000,
      destination: e.destination,
      pollUrl: '/p',
      now: server.clock.now(),
    }),
  );

/** A payout pass of the server's store and clock, the bundled wallet sender and a silent log; `over` adds the rest. */
export const payoutsOf = (
  server: Pick<TestServer, 'db' | 'clock'>,
  over: Partial<Parameters<typeof createPayouts>[0]> = {},
) =>
  createPayouts({
    db: server.db,
    clock: server.clock,
    logger: createLogger('silent'),
    sender: localPayoutSender,
    ...over,
  });

export const jwtFor = (server: TestServer, accountId: string) =>
  createJwtService(loadJwtSecret(undefined, server.dataDir), server.clock).issue(accountId);

export async function seedLearning(server: TestServer, over: Partial<NewLearning> = {}) {
  const l = newLearning({
    createdAt: server.clock.now(),
    publishedAt: server.clock.now(),
    lastRepricedAt: server.clock.now(),
    updatedAt: server.clock.now(),
    ...over,
  });
  await learningsStore.insert(server.db, l);
  return l;
}

export const getUnlock = (server: TestServer, id: string, headers: Record<string, string> = {}) =>
  fetch(`${server.url}/knowledge/${id}`, { headers });

/** A USDC TransferWithAuthorization signed with viem, as an exact-scheme payload. */
export async function signAuthorization(
  account: PrivateKeyAccount,
  a: { to: string; value: number | bigint; validAfter?: bigint; validBefore: bigint; nonce?: `0x${string}` },
) {
  const { authorizationTypes } = await import('@x402/evm');
  const authorization = {
    from: account.address,
    to: a.to as `0x${string}`,
    value: BigInt(a.value),
    validAfter: a.validAfter ?? 0n,
    validBefore: a.validBefore,
    nonce: a.nonce ?? (`0x${randomBytes(32).toString('hex')}` as `0x${string}`),
  };
  const signature = await account.signTypedData({
    domain: { name: USDC.name, version: USDC.version, chainId: 8453, verifyingContract: USDC.asset as `0x${string}` },
    types: authorizationTypes,
    primaryType: 'TransferWithAuthorization',
    message: authorization,
  });
  return {
    signature,
    authorization: Object.fromEntries(
      Object.entries(authorization).map(([k, v]) => [k, typeof v === 'bigint' ? v.toString() : v]),
    ) as Record<string, string>,
  };
}

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64');

/** An x402 v1 X-Payment value. */
export const v1Header = (payload: unknown, network = 'eip155:8453') =>
  b64({ x402Version: 1, scheme: 'exact', network, payload });

/** An x402 v2 PAYMENT-SIGNATURE value accepting `accepted`. */
export const v2Header = (payload: unknown, accepted: Record<string, unknown>) =>
  b64({ x402Version: 2, accepted, payload });

/** POST /wallet/challenge for `account`, signed by it (not yet sent to /wallet/verify). */
export async function requestAndSignChallenge(server: TestServer, account: PrivateKeyAccount) {
  const res = await post(server, '/wallet/challenge', { wallet: account.address });
  if (res.status !== 200) throw new Error(`wallet/challenge: ${res.status} ${await res.text()}`);
  const c = (await res.json()) as {
    challenge: string;
    expires_in_seconds: number;
    typed_data: { message: { expires: number } };
  };
  if (c.expires_in_seconds !== 300) throw new Error(`expires_in_seconds: ${c.expires_in_seconds}`);
  const signature = await account.signTypedData(
    walletProof(account.address, c.challenge, c.typed_data.message.expires * 1000),
  );
  return { challenge: c.challenge, signature };
}

/**
 * Proves control of `account` through POST /wallet/challenge and POST /wallet/verify; sent with an account's
 * credential (`headers`), for that account (the one that may link it).
 */
export async function verifyWallet(
  server: TestServer,
  account: PrivateKeyAccount,
  headers: Record<string, string> = {},
): Promise<void> {
  const { signature } = await requestAndSignChallenge(server, account);
  const res = await post(server, '/wallet/verify', { wallet: account.address, signature }, headers);
  if (res.status !== 200) throw new Error(`wallet/verify: ${res.status} ${await res.text()}`);
}
