import fs from 'node:fs';
import path from 'node:path';
import { AccountEarnings, ContributorEarnings, ContributorSettlements, LIMITS } from '@axle/sdk';
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLedger } from '../src/services/ledger-check.js';
import { walletProof } from '../src/services/wallets.js';
import { ledgerStore } from '../src/store/ledger.js';
import { startTestServer, type TestServer } from '../../../test/support/server.js';
import { bearer, post } from '../../../test/support/identity.js';
import { getUnlock, jwtFor, newBuyer, requestAndSignChallenge, seedLearning, verifyWallet } from './money-helpers.js';

let server: TestServer;
let listFile: string;
beforeAll(async () => {
  server = await startTestServer();
  listFile = path.join(server.dataDir, 'blocked.txt');
  fs.writeFileSync(listFile, '# test list\n0x00000000000000000000000000000000000bad01\n');
  await server.stop({ keepData: true });
  server = await startTestServer(
    { AXLE_SANCTIONS_LIST: listFile, AXLE_TRUST_PROXY: 'true' },
    { dataDir: server.dataDir },
  );
});
afterAll(() => server.stop());

const challengeAndSign = (account: PrivateKeyAccount) => requestAndSignChallenge(server, account);

describe('wallet proof', () => {
  it('verifies a signed challenge once; a reused, forged or expired challenge is refused', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const { signature } = await challengeAndSign(account);
    const ok = await post(server, '/wallet/verify', { wallet: account.address, signature });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ verified: true, wallet: account.address.toLowerCase() });
    const reused = await post(server, '/wallet/verify', { wallet: account.address, signature });
    expect(reused.status).toBe(400);
    expect(((await reused.json()) as { error: string }).error).toMatch(/already used/);

    const forger = privateKeyToAccount(generatePrivateKey());
    const victim = privateKeyToAccount(generatePrivateKey());
    const c = (await (await post(server, '/wallet/challenge', { wallet: victim.address })).json()) as {
      challenge: string;
      typed_data: { message: { expires: number } };
    };
    const forged = await forger.signTypedData(
      walletProof(victim.address, c.challenge, c.typed_data.message.expires * 1000),
    );
    const refused = await post(server, '/wallet/verify', { wallet: victim.address, signature: forged });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: string }).error).toMatch(/does not match/);

    const late = await challengeAndSign(victim);
    server.clock.advance(301_000);
    const expired = await post(server, '/wallet/verify', { wallet: victim.address, signature: late.signature });
    expect(((await expired.json()) as { error: string }).error).toMatch(/expired/);
  });
});

describe('wallet proof against a stranger asking for the same wallet', () => {
  it('a proof naming its challenge still verifies after others ask for challenges for the wallet', async () => {
    const owner = privateKeyToAccount(generatePrivateKey());
    const { challenge, signature } = await challengeAndSign(owner);
    // Anyone may ask for challenges for any wallet: a stranger's newer one is the newest unused.
    server.clock.advance(1_000);
    const stranger = { 'x-forwarded-for': '198.51.100.7' };
    expect((await post(server, '/wallet/challenge', { wallet: owner.address }, stranger)).status).toBe(200);
    const ok = await post(server, '/wallet/verify', { wallet: owner.address, signature, challenge });
    expect(ok.status).toBe(200);
    // A challenge of another wallet, or one that does not exist, is no challenge for this one.
    const other = await challengeAndSign(privateKeyToAccount(generatePrivateKey()));
    const crossed = await post(server, '/wallet/verify', {
      wallet: owner.address,
      signature,
      challenge: other.challenge,
    });
    expect(((await crossed.json()) as { error: string }).error).toMatch(/No challenge/);
  });

  it('a proof without its challenge named still verifies after a stranger asks for newer ones', async () => {
    const owner = privateKeyToAccount(generatePrivateKey());
    const { signature } = await challengeAndSign(owner);
    // The contract's client names no challenge: the stranger's newer ones are not what the owner signed.
    const stranger = { 'x-forwarded-for': '198.51.100.11' };
    for (let i = 0; i < 3; i++) {
      server.clock.advance(1_000);
      expect((await post(server, '/wallet/challenge', { wallet: owner.address }, stranger)).status).toBe(200);
    }
    expect((await post(server, '/wallet/verify', { wallet: owner.address, signature })).status).toBe(200);
    const reused = await post(server, '/wallet/verify', { wallet: owner.address, signature });
    expect(((await reused.json()) as { error: string }).error).toMatch(/does not match/);
  });

  it("a stranger's wrong signatures use up none of the owner's challenges", async () => {
    const owner = privateKeyToAccount(generatePrivateKey());
    const { challenge, signature } = await challengeAndSign(owner);
    // Anyone may send a verify for any wallet: without the key its signatures are wrong, named challenge or not.
    const stranger = { 'x-forwarded-for': '198.51.100.9' };
    const junk = await privateKeyToAccount(generatePrivateKey()).signMessage({ message: 'junk' });
    for (const body of [
      { wallet: owner.address, signature: junk },
      { wallet: owner.address, signature: junk, challenge },
    ]) {
      const refused = await post(server, '/wallet/verify', body, stranger);
      expect(((await refused.json()) as { error: string }).error).toMatch(/does not match/);
    }
    expect((await post(server, '/wallet/verify', { wallet: owner.address, signature })).status).toBe(200);
    const reused = await post(server, '/wallet/verify', { wallet: owner.address, signature, challenge });
    expect(((await reused.json()) as { error: string }).error).toMatch(/already used/);
  });

  it("a stranger using up a wallet's challenges from one address does not refuse its owner at another", async () => {
    const owner = privateKeyToAccount(generatePrivateKey());
    const stranger = { 'x-forwarded-for': '198.51.100.8' };
    for (let i = 0; i < 10; i++)
      expect((await post(server, '/wallet/challenge', { wallet: owner.address }, stranger)).status).toBe(200);
    expect((await post(server, '/wallet/challenge', { wallet: owner.address }, stranger)).status).toBe(429);
    const mine = await post(
      server,
      '/wallet/challenge',
      { wallet: owner.address },
      { 'x-forwarded-for': '203.0.113.9' },
    );
    expect(mine.status).toBe(200);
  });
});

describe('wallet challenge limits', () => {
  it('refuses an eleventh challenge for one wallet within 10 minutes with 429 and Retry-After', async () => {
    const wallet = privateKeyToAccount(generatePrivateKey()).address;
    for (let i = 0; i < 10; i++) expect((await post(server, '/wallet/challenge', { wallet })).status).toBe(200);
    const refused = await post(server, '/wallet/challenge', { wallet });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('wallet verify limits', () => {
  it('takes 30 a minute from one address before checking the signature; the owner verifies from another', async () => {
    const owner = privateKeyToAccount(generatePrivateKey());
    const { challenge, signature } = await challengeAndSign(owner);
    const junk = await privateKeyToAccount(generatePrivateKey()).signMessage({ message: 'junk' });
    const stranger = { 'x-forwarded-for': '198.51.100.10' };
    const { perMinute } = LIMITS.perAddress.walletVerify;
    const wrong = [];
    for (let i = 0; i < perMinute; i++)
      wrong.push((await post(server, '/wallet/verify', { wallet: owner.address, signature: junk }, stranger)).status);
    expect(wrong).toEqual(Array(perMinute).fill(400));
    const refused = await post(server, '/wallet/verify', { wallet: owner.address, signature: junk }, stranger);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await post(server, '/wallet/verify', { wallet: owner.address, signature, challenge })).status).toBe(200);
  });
});

describe('POST /account/link-wallet', () => {
  it('needs terms, a verified wallet not in use, no wallet on the account; migrates held earnings', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    // Earnings held for the wallet before it is linked.
    const l = await seedLearning(server, { contributorWallet: account.address, currentPriceMicro: 100_000 });
    const buyer = await newBuyer(server, { credits: 1 });
    expect((await getUnlock(server, l.id, { 'x-api-key': buyer.key })).status).toBe(200);
    expect((await ledgerStore.balance(server.db, account.address.toLowerCase())).held_micro).toBe(70_000);

    const noTerms = await newBuyer(server);
    const refused = await post(
      server,
      '/account/link-wallet',
      { wallet: account.address },
      { 'x-api-key': noTerms.key },
    );
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ code: 'TERMS_NOT_ACCEPTED', current_tos_version: expect.any(String) });

    const owner = await newBuyer(server, { terms: true });
    const unverified = await post(
      server,
      '/account/link-wallet',
      { wallet: account.address },
      bearer(await jwtFor(server, owner.accountId)),
    );
    expect(unverified.status).toBe(400);
    expect(((await unverified.json()) as { error: string }).error).toMatch(/not verified/);

    const { signature } = await challengeAndSign(account);
    expect(
      (await post(server, '/wallet/verify', { wallet: account.address, signature }, { 'x-api-key': owner.key })).status,
    ).toBe(200);
    // A key with the account scope is accepted as well as a session token.
    const linked = await post(server, '/account/link-wallet', { wallet: account.address }, { 'x-api-key': owner.key });
    expect(linked.status).toBe(200);
    expect(await linked.json()).toEqual({
      message: expect.any(String),
      wallet: account.address.toLowerCase(),
      account_id: owner.accountId,
    });

    const earnings = AccountEarnings.strict().parse(
      await (await fetch(`${server.url}/account/earnings`, { headers: { 'x-api-key': owner.key } })).json(),
    );
    expect(earnings).toMatchObject({
      wallet: account.address.toLowerCase(),
      total_gross_usd: 0.1,
      total_contributor: 0.07,
      unassented_pending: 0,
      pending_balance: 0.07,
      can_withdraw: false,
    });
    expect(earnings.message).toMatch(/paused/);

    const other = await newBuyer(server, { terms: true });
    const inUse = await post(server, '/account/link-wallet', { wallet: account.address }, { 'x-api-key': other.key });
    expect(((await inUse.json()) as { error: string }).error).toMatch(/another account/);
    const second = privateKeyToAccount(generatePrivateKey());
    const s = await challengeAndSign(second);
    await post(
      server,
      '/wallet/verify',
      { wallet: second.address, signature: s.signature },
      { 'x-api-key': owner.key },
    );
    const already = await post(server, '/account/link-wallet', { wallet: second.address }, { 'x-api-key': owner.key });
    expect(((await already.json()) as { error: string }).error).toMatch(/already has a linked wallet/);
    expect(
      (await post(server, '/account/link-wallet', { wallet: 'not-a-wallet' }, { 'x-api-key': owner.key })).status,
    ).toBe(400);
    expect(await checkLedger(server.db)).toEqual([]);
  });

  it("another account cannot link a wallet its owner verified: the owner's held earnings stay the owner's", async () => {
    // A wallet-only contributor: verified (for POST /learn's wallet identity) without any account.
    const contributor = privateKeyToAccount(generatePrivateKey());
    const l = await seedLearning(server, { contributorWallet: contributor.address, currentPriceMicro: 1_000_000 });
    const buyer = await newBuyer(server, { credits: 1, creditValueMicro: 1_000_000 });
    expect((await getUnlock(server, l.id, { 'x-api-key': buyer.key })).status).toBe(200);
    const key = contributor.address.toLowerCase();
    expect((await ledgerStore.balance(server.db, key)).held_micro).toBe(700_000);
    const anonymous = await challengeAndSign(contributor);
    expect(
      (await post(server, '/wallet/verify', { wallet: contributor.address, signature: anonymous.signature })).status,
    ).toBe(200);

    // An attacker with an account of its own, terms accepted, asks to link the verified wallet.
    const attacker = await newBuyer(server, { terms: true });
    const stolen = await post(
      server,
      '/account/link-wallet',
      { wallet: contributor.address },
      { 'x-api-key': attacker.key },
    );
    expect(stolen.status).toBe(400);
    expect(((await stolen.json()) as { error: string }).error).toMatch(/not verified for this account/);
    expect((await ledgerStore.balance(server.db, attacker.accountId)).pending_micro).toBe(0);
    expect((await ledgerStore.balance(server.db, key)).held_micro).toBe(700_000);

    // Verified for the owner's own account: the attacker still cannot link it.
    const owner = await newBuyer(server, { terms: true });
    const forOwner = await challengeAndSign(contributor);
    expect(
      (
        await post(
          server,
          '/wallet/verify',
          { wallet: contributor.address, signature: forOwner.signature },
          { 'x-api-key': owner.key },
        )
      ).status,
    ).toBe(200);
    const again = await post(
      server,
      '/account/link-wallet',
      { wallet: contributor.address },
      { 'x-api-key': attacker.key },
    );
    expect(again.status).toBe(400);
    // A later verification without credentials keeps the owner's account.
    const plain = await challengeAndSign(contributor);
    await post(server, '/wallet/verify', { wallet: contributor.address, signature: plain.signature });
    const linked = await post(
      server,
      '/account/link-wallet',
      { wallet: contributor.address },
      { 'x-api-key': owner.key },
    );
    expect(linked.status).toBe(200);
    expect((await ledgerStore.balance(server.db, owner.accountId)).pending_micro).toBe(700_000);
    expect(await checkLedger(server.db)).toEqual([]);
  });

  it('a sanctioned wallet is 403; an unreadable list is 503 sanctions screening unavailable', async () => {
    const owner = await newBuyer(server, { terms: true });
    const listed = privateKeyToAccount(generatePrivateKey());
    fs.appendFileSync(listFile, `${listed.address}\n`);
    const link = (wallet: string) => post(server, '/account/link-wallet', { wallet }, { 'x-api-key': owner.key });
    // Screened once it is verified (the database's refusals come first, as in the contract's order).
    expect((await link('0x00000000000000000000000000000000000BAD01')).status).toBe(400);
    await verifyWallet(server, listed, { 'x-api-key': owner.key });
    const blocked = await link(listed.address);
    expect(blocked.status).toBe(403);
    expect(await blocked.json()).toMatchObject({ code: 'sanctions_blocked' });
    fs.rmSync(listFile);
    const clean = privateKeyToAccount(generatePrivateKey());
    await verifyWallet(server, clean, { 'x-api-key': owner.key });
    const unavailable = await link(clean.address);
    expect(unavailable.status).toBe(503);
    expect(await unavailable.json()).toMatchObject({ error: 'sanctions screening unavailable' });
    fs.writeFileSync(listFile, '0x00000000000000000000000000000000000bad01\n');
  });
});

describe('earnings', () => {
  it('GET /account/earnings needs credentials; /contributor/{wallet} and its settlements show the totals', async () => {
    expect((await fetch(`${server.url}/account/earnings`)).status).toBe(401);
    const wallet = '0x0000000000000000000000000000000000001234';
    const l = await seedLearning(server, { contributorWallet: wallet, currentPriceMicro: 200_000 });
    const buyer = await newBuyer(server, { credits: 1, creditValueMicro: 200_000 });
    await getUnlock(server, l.id, { 'x-api-key': buyer.key });
    const c = ContributorEarnings.parse(await (await fetch(`${server.url}/contributor/${wallet}`)).json());
    expect(c).toMatchObject({
      wallet,
      total_gross_usd: 0.2,
      total_contributor_usd: 0.14,
      total_platform_usd: 0.06,
      learnings_submitted: 1,
    });
    expect(c.by_learning[l.id]).toEqual({ title: l.title, unlocks: 1, gross_usd: 0.2, contributor_usd: 0.14 });
    const s = ContributorSettlements.parse(
      await (await fetch(`${server.url}/contributor/${wallet}/settlements`)).json(),
    );
    expect(s).toEqual({ wallet, pending_balance: 0, total_withdrawn: 0, settlements: [] });
  });
});
