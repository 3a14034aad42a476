import { LearningFull, untrustedText } from '@axle/sdk';
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from '@x402/core/http';
import type { PaymentRequired } from '@x402/core/types';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import {
  extractReceiptFromResponse,
  extractReceiptPayload,
  verifyReceiptSignatureJWS,
  type JWSSignedReceipt,
} from '@x402/extensions/offer-receipt';
import {
  PAYMENT_IDENTIFIER,
  appendPaymentIdentifierToExtensions,
  generatePaymentId,
  validatePaymentIdentifier,
} from '@x402/extensions/payment-identifier';
import {
  SIGN_IN_WITH_X,
  createSIWxClientExtension,
  createSIWxPayload,
  encodeSIWxHeader,
  type SIWxExtension,
} from '@x402/extensions/sign-in-with-x';
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../src/clock.js';
import { checkLedger } from '../src/services/ledger-check.js';
import { createReceiptSigner, newSigningKey, receiptExtension } from '../src/payments/receipts.js';
import { createSiwx, SIWX_TTL_SECONDS } from '../src/payments/siwx.js';
import { createX402ExtensionsService } from '../src/services/x402-extensions.js';
import { startTestServer, type TestServer } from '../../../test/support/server.js';
import { startFacilitator } from './facilitator-standin.js';
import { seedLearning } from './money-helpers.js';

// The x402 extensions driven by the x402 packages' own clients and helpers over loopback: @x402/fetch pays,
// @x402/extensions builds the payment-identifier and the sign-in-with-x proof and verifies receipts.

let server: TestServer;
let facilitator: Awaited<ReturnType<typeof startFacilitator>>;
/** What the facilitator stand-in answers; a test may make it refuse settlements for a while. */
const behaviour: Parameters<typeof startFacilitator>[0] = {};

beforeAll(async () => {
  facilitator = await startFacilitator(behaviour);
  // Real time: @x402/fetch signs authorizations against the wall clock.
  server = await startTestServer({ AXLE_FACILITATOR_URL: facilitator.url }, { clock: new ManualClock(Date.now()) });
});
// @x402/fetch signs against the wall clock: keep the server's clock on it however slowly the file runs.
beforeEach(() => server.clock.set(Date.now()));
afterAll(async () => {
  await server?.stop();
  await facilitator?.close();
});

const settles = () => facilitator.calls.filter((c) => c.path === '/settle').length;
const paidUnlocks = async (learningId: string) =>
  (await server.db.all('SELECT id FROM unlocks WHERE learning_id = ? AND gross_micro > 0', [learningId])).length;
const url = (id: string) => `${server.url}/knowledge/${id}`;

/** An x402 client paying with `account`, counting the payloads it signs; `paymentId` rides in each one. */
function payer(account: PrivateKeyAccount, paymentId?: string) {
  const client = new x402Client();
  registerExactEvmScheme(client, { signer: account });
  const signed: string[] = [];
  client.onBeforePaymentCreation(async ({ paymentRequired }) => {
    signed.push(paymentRequired.accepts[0]!.amount);
    if (!paymentId) return;
    paymentRequired.extensions ??= {};
    appendPaymentIdentifierToExtensions(paymentRequired.extensions, paymentId);
  });
  return { client, signed, fetch: wrapFetchWithPayment(fetch, client) };
}

async function required(id: string): Promise<PaymentRequired> {
  const res = await fetch(url(id));
  expect(res.status).toBe(402);
  return decodePaymentRequiredHeader(res.headers.get('payment-required')!);
}

describe('the 402 declares the extensions', () => {
  it('payment-identifier (optional) and sign-in-with-x bound to this origin, in the extensions’ own shapes', async () => {
    const l = await seedLearning(server);
    const pr = await required(l.id);
    expect(validatePaymentIdentifier(pr.extensions![PAYMENT_IDENTIFIER])).toEqual({ valid: true });
    expect(pr.extensions![PAYMENT_IDENTIFIER]).toMatchObject({ info: { required: false } });
    const siwx = pr.extensions![SIGN_IN_WITH_X] as SIWxExtension;
    expect(siwx.info).toMatchObject({
      domain: new URL(server.url).host,
      uri: url(l.id),
      version: '1',
      resources: [url(l.id)],
    });
    expect(siwx.info.nonce).toMatch(/^[0-9a-f]{32}$/);
    expect(siwx.supportedChains).toEqual([{ chainId: 'eip155:8453', type: 'eip191' }]);
    // A fresh challenge each time.
    expect(((await required(l.id)).extensions![SIGN_IN_WITH_X] as SIWxExtension).info.issuedAt).toBeDefined();
  });
});

describe('payment-identifier', () => {
  it('@x402/fetch: a retry under the same id (its response lost) gets the same unlock, settled once', async () => {
    const l = await seedLearning(server, { currentPriceMicro: 70_000 });
    const id = generatePaymentId();
    const buyer = payer(privateKeyToAccount(generatePrivateKey()), id);
    const before = settles();
    const first = await buyer.fetch(url(l.id));
    expect(first.status).toBe(200);
    const firstBody = LearningFull.parse(await first.json());
    expect(firstBody._revenue.amount_paid_usd).toBe(0.07);
    // The client never saw that answer and tries again: it signs a new authorization under the same id.
    const again = await buyer.fetch(url(l.id));
    expect(again.status).toBe(200);
    const againBody = LearningFull.parse(await again.json());
    expect(untrustedText(againBody.body)).toBe(l.body);
    expect(againBody._revenue).toEqual(firstBody._revenue);
    expect(buyer.signed).toHaveLength(2);
    expect(settles() - before).toBe(1);
    expect(await paidUnlocks(l.id)).toBe(1);
    expect(decodePaymentResponseHeader(again.headers.get('payment-response')!)).toMatchObject({
      success: true,
      transaction: `0x${'ab'.repeat(32)}`,
    });
  });

  it('the very same header sent again answers the same unlock without a second verify or settlement', async () => {
    const l = await seedLearning(server);
    const account = privateKeyToAccount(generatePrivateKey());
    const client = new x402Client();
    registerExactEvmScheme(client, { signer: account });
    const pr = await required(l.id);
    appendPaymentIdentifierToExtensions(pr.extensions!, generatePaymentId('retry_'));
    const header = Buffer.from(JSON.stringify(await client.createPaymentPayload(pr))).toString('base64');
    const calls = facilitator.calls.length;
    const one = await fetch(url(l.id), { headers: { 'payment-signature': header } });
    const two = await fetch(url(l.id), { headers: { 'payment-signature': header } });
    expect([one.status, two.status]).toEqual([200, 200]);
    expect((await two.json())._revenue).toEqual((await one.json())._revenue);
    expect(facilitator.calls.slice(calls).map((c) => c.path)).toEqual(['/verify', '/settle']);
    // Without an id the same header is a replay, refused.
    const bare = await client.createPaymentPayload(await required(l.id));
    const bareHeader = Buffer.from(JSON.stringify(bare)).toString('base64');
    expect((await fetch(url(l.id), { headers: { 'payment-signature': bareHeader } })).status).toBe(200);
    expect((await fetch(url(l.id), { headers: { 'payment-signature': bareHeader } })).status).toBe(402);
  });

  it('the same id with another payment (another learning, another payer) is 409, and charges nothing', async () => {
    const a = await seedLearning(server);
    const b = await seedLearning(server);
    const id = generatePaymentId();
    const first = payer(privateKeyToAccount(generatePrivateKey()), id);
    expect((await first.fetch(url(a.id))).status).toBe(200);
    const before = settles();
    const otherLearning = await first.fetch(url(b.id));
    expect(otherLearning.status).toBe(409);
    expect(await otherLearning.json()).toMatchObject({ code: 'payment_identifier_conflict' });
    const otherPayer = await payer(privateKeyToAccount(generatePrivateKey()), id).fetch(url(a.id));
    expect(otherPayer.status).toBe(409);
    expect(settles()).toBe(before);
    expect(await paidUnlocks(b.id)).toBe(0);
  });

  it('two sends of one payment at once: one settles, the other waits its turn (409 in progress) or replays', async () => {
    const l = await seedLearning(server);
    const client = new x402Client();
    registerExactEvmScheme(client, { signer: privateKeyToAccount(generatePrivateKey()) });
    const pr = await required(l.id);
    appendPaymentIdentifierToExtensions(pr.extensions!, generatePaymentId());
    const header = Buffer.from(JSON.stringify(await client.createPaymentPayload(pr))).toString('base64');
    const before = settles();
    const send = () => fetch(url(l.id), { headers: { 'payment-signature': header } });
    const answers = await Promise.all([send(), send()]);
    const statuses = answers.map((r) => r.status).sort();
    expect([
      [200, 200],
      [200, 409],
    ]).toContainEqual(statuses);
    for (const r of answers) if (r.status === 409) expect((await r.json()).code).toBe('payment_in_progress');
    expect(settles() - before).toBe(1);
    expect((await send()).status).toBe(200);
    expect(await paidUnlocks(l.id)).toBe(1);
  });

  it('a refused settlement frees the id: the retry under it settles', async () => {
    const l = await seedLearning(server);
    const buyer = payer(privateKeyToAccount(generatePrivateKey()), generatePaymentId());
    behaviour.settle = () => [
      200,
      { success: false, errorReason: 'insufficient_funds', transaction: '', network: 'eip155:8453' },
    ];
    try {
      expect((await buyer.fetch(url(l.id))).status).toBe(402);
    } finally {
      delete behaviour.settle;
    }
    expect((await buyer.fetch(url(l.id))).status).toBe(200);
    expect(await paidUnlocks(l.id)).toBe(1);
  });

  it('an id answers its unlock only within 30 days: a month on, a re-signed send under it is not served free', async () => {
    const l = await seedLearning(server);
    const id = generatePaymentId();
    const account = privateKeyToAccount(generatePrivateKey());
    expect((await payer(account, id).fetch(url(l.id))).status).toBe(200);
    const month = 31 * 86_400_000;
    await server.db.run('UPDATE unlocks SET created_at = created_at - ? WHERE learning_id = ?', [month, l.id]);
    await server.db.run('UPDATE payment_identifiers SET created_at = created_at - ? WHERE id = ?', [month, id]);
    const before = settles();
    const late = await payer(account, id).fetch(url(l.id));
    expect(late.status).toBe(409);
    expect(await late.json()).toMatchObject({ code: 'payment_identifier_conflict' });
    expect(settles()).toBe(before);
    // A new id is a new purchase, paid.
    const fresh = await payer(account, generatePaymentId()).fetch(url(l.id));
    expect(fresh.status).toBe(200);
    expect(LearningFull.parse(await fresh.json())._revenue.amount_paid_usd).toBe(0.08);
    expect(await paidUnlocks(l.id)).toBe(2);
  });

  it('a malformed id is refused like a malformed payment (402)', async () => {
    const l = await seedLearning(server);
    const account = privateKeyToAccount(generatePrivateKey());
    const client = new x402Client();
    registerExactEvmScheme(client, { signer: account });
    const pr = await required(l.id);
    const payload = await client.createPaymentPayload(pr);
    payload.extensions = { [PAYMENT_IDENTIFIER]: { info: { required: false, id: 'short' } } };
    const res = await fetch(url(l.id), {
      headers: { 'payment-signature': Buffer.from(JSON.stringify(payload)).toString('base64') },
    });
    expect(res.status).toBe(402);
    expect((await res.json()).error).toMatch(/payment-identifier/);
    expect(await checkLedger(server.db)).toEqual([]);
  });
});

describe('sign-in-with-x', () => {
  it('@x402/fetch: a wallet that paid reads again by signing in, without a second payment', async () => {
    const l = await seedLearning(server, { currentPriceMicro: 60_000 });
    const account = privateKeyToAccount(generatePrivateKey());
    const buyer = payer(account);
    buyer.client.registerExtension(createSIWxClientExtension({ signers: [account] }));
    const before = settles();
    // Not paid yet: the sign-in is answered with the ordinary 402, and the client pays.
    expect((await buyer.fetch(url(l.id))).status).toBe(200);
    expect(buyer.signed).toHaveLength(1);
    const again = await buyer.fetch(url(l.id));
    expect(again.status).toBe(200);
    const body = LearningFull.parse(await again.json());
    expect(untrustedText(body.body)).toBe(l.body);
    expect(body._revenue).toMatchObject({ amount_paid_usd: 0, accrual_capped: true });
    expect(buyer.signed).toHaveLength(1);
    expect(settles() - before).toBe(1);
  });

  /** A proof by `account` of the challenge in a fresh 402 for `id`, built by the extension's own client helpers. */
  async function proof(id: string, account: PrivateKeyAccount, edit?: (p: Record<string, unknown>) => void) {
    const ext = (await required(id)).extensions![SIGN_IN_WITH_X] as SIWxExtension;
    const chain = ext.supportedChains[0]!;
    const payload = await createSIWxPayload(
      { ...ext.info, chainId: chain.chainId, type: chain.type },
      account,
      url(id),
    );
    edit?.(payload as unknown as Record<string, unknown>);
    return encodeSIWxHeader(payload);
  }
  const signIn = (id: string, header: string) => fetch(url(id), { headers: { 'sign-in-with-x': header } });

  it('a wrong, forged, replayed or expired proof gets the ordinary 402', async () => {
    const l = await seedLearning(server);
    const account = privateKeyToAccount(generatePrivateKey());
    expect((await payer(account).fetch(url(l.id))).status).toBe(200);

    // Not a proof at all.
    for (const junk of ['not base64!', Buffer.from('{"domain":1}').toString('base64'), 'e30=']) {
      const res = await signIn(l.id, junk);
      expect(res.status).toBe(402);
      expect((await res.json()).code).toBe('payment_required');
    }
    // Never paid for this learning.
    const stranger = await signIn(l.id, await proof(l.id, privateKeyToAccount(generatePrivateKey())));
    expect(stranger.status).toBe(402);
    expect(stranger.headers.get('payment-required')).toBeTruthy();
    // Paid for another learning only.
    const other = await seedLearning(server);
    expect((await signIn(other.id, await proof(other.id, account))).status).toBe(402);
    // A nonce the server did not issue, validly signed.
    const forged = await proof(l.id, account, (p) => {
      p.nonce = 'a'.repeat(32);
    });
    expect((await signIn(l.id, forged)).status).toBe(402);
    // The challenge of another learning.
    const elsewhere = await proof(other.id, account);
    expect((await signIn(l.id, elsewhere)).status).toBe(402);

    const good = await proof(l.id, account);
    expect((await signIn(l.id, good)).status).toBe(200);
    expect((await signIn(l.id, good)).status).toBe(402);

    const late = await proof(l.id, account);
    server.clock.advance(301_000);
    expect((await signIn(l.id, late)).status).toBe(402);
  });

  it('a used proof stays used when an instance whose clock runs ahead pruned it as expired', async () => {
    const l = await seedLearning(server);
    const account = privateKeyToAccount(generatePrivateKey());
    expect((await payer(account).fetch(url(l.id))).status).toBe(200);
    const issued = server.clock.now();
    const good = await proof(l.id, account);
    expect((await signIn(l.id, good)).status).toBe(200);
    // Another instance, its clock 2 s ahead, grants a sign-in as the proof expires (each claim prunes)...
    server.clock.set(issued + SIWX_TTL_SECONDS * 1000 + 2000);
    expect((await signIn(l.id, await proof(l.id, account))).status).toBe(200);
    // ...and this one, 2 s behind it, still holds the used proof unexpired.
    server.clock.set(issued + SIWX_TTL_SECONDS * 1000 - 1000);
    expect((await signIn(l.id, good)).status).toBe(402);
  });

  it('signing in again writes no unlock row each time: one free read is booked per 30 days', async () => {
    const l = await seedLearning(server);
    const account = privateKeyToAccount(generatePrivateKey());
    expect((await payer(account).fetch(url(l.id))).status).toBe(200);
    for (let i = 0; i < 3; i++) {
      // A challenge a second later: another nonce.
      server.clock.advance(1000);
      expect((await signIn(l.id, await proof(l.id, account))).status).toBe(200);
    }
    const rows = await server.db.all<{ gross_micro: number; accrual_capped: number }>(
      'SELECT gross_micro, accrual_capped FROM unlocks WHERE learning_id = ? ORDER BY created_at, id',
      [l.id],
    );
    expect(rows.map((r) => [Number(r.gross_micro) > 0, Number(r.accrual_capped)])).toEqual([
      [true, 0],
      [false, 1],
    ]);
  });

  it('a payment older than 30 days does not count', async () => {
    const l = await seedLearning(server);
    const account = privateKeyToAccount(generatePrivateKey());
    expect((await payer(account).fetch(url(l.id))).status).toBe(200);
    await server.db.run('UPDATE unlocks SET created_at = created_at - ? WHERE learning_id = ?', [
      31 * 86_400_000,
      l.id,
    ]);
    expect((await signIn(l.id, await proof(l.id, account))).status).toBe(402);
  });
});

describe('receipts (offer/receipt)', () => {
  it('a settled unlock carries a JWS receipt that verifies offline against the key at /.well-known/did.json', async () => {
    const l = await seedLearning(server);
    const account = privateKeyToAccount(generatePrivateKey());
    const res = await payer(account).fetch(url(l.id));
    expect(res.status).toBe(200);
    const receipt = extractReceiptFromResponse(res) as JWSSignedReceipt;
    expect(receipt.format).toBe('jws');

    const doc = (await (await fetch(`${server.url}/.well-known/did.json`)).json()) as {
      id: string;
      verificationMethod: Array<{ id: string; publicKeyJwk: Record<string, string> }>;
    };
    expect(doc.id).toBe(`did:web:${encodeURIComponent(new URL(server.url).host)}`);
    const jwk = doc.verificationMethod[0]!.publicKeyJwk;
    // Offline: the key fetched once, no server needed to check this receipt.
    const payload = await verifyReceiptSignatureJWS(receipt, jwk as never);
    expect(payload).toMatchObject({
      version: 1,
      network: 'eip155:8453',
      resourceUrl: url(l.id),
      payer: account.address.toLowerCase(),
    });
    expect(Math.abs(payload.issuedAt - Math.floor(server.clock.now() / 1000))).toBeLessThanOrEqual(1);
    expect(extractReceiptPayload(receipt)).toEqual(payload);
    // Resolved from the kid (did:web) as the extension does by itself.
    expect(await verifyReceiptSignatureJWS(receipt)).toEqual(payload);

    // A receipt edited to name another payer does not verify.
    const [h, p, s] = receipt.signature.split('.');
    const edited = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(p!, 'base64url').toString()), payer: `0x${'1'.repeat(40)}` }),
    ).toString('base64url');
    await expect(
      verifyReceiptSignatureJWS({ format: 'jws', signature: `${h}.${edited}.${s}` }, jwk as never),
    ).rejects.toThrow();
  });

  it('a repeat that settles nothing carries no receipt; another instance on the database signs with the same key', async () => {
    const l = await seedLearning(server);
    const account = privateKeyToAccount(generatePrivateKey());
    const buyer = payer(account);
    expect((await buyer.fetch(url(l.id))).status).toBe(200);
    const repeat = await buyer.fetch(url(l.id));
    expect(repeat.status).toBe(200);
    expect((await repeat.json())._revenue).toMatchObject({ accrual_capped: true });
    expect(extractReceiptFromResponse(repeat)).toBeUndefined();
    const published = await (await fetch(`${server.url}/.well-known/did.json`)).json();
    const another = createX402ExtensionsService({
      db: server.db,
      clock: server.clock,
      baseUrl: () => server.url,
      secret: new Uint8Array(32),
    });
    expect(await another.didDocument()).toEqual(published);
  });
});

describe('the books', () => {
  it('balance after every payment, replay, sign-in and refusal above', async () => {
    expect(await checkLedger(server.db)).toEqual([]);
  });
});

describe('the extensions are loaded at first use', () => {
  it('an extension that fails to load is an error for the 402, the sign-in and the receipt, not a refused proof', async () => {
    const missing = new Error('the extension is not installed');
    vi.doMock('@x402/extensions/sign-in-with-x', () => {
      throw missing;
    });
    vi.doMock('@x402/extensions/offer-receipt', () => {
      throw missing;
    });
    try {
      // Vitest reports a failed load under its own message, the module's error as the cause.
      const failedLoad = { cause: missing };
      const siwx = createSiwx(new Uint8Array(32));
      const resource = url('l_any');
      await expect(siwx.declaration(resource, Date.now())).rejects.toMatchObject(failedLoad);
      await expect(siwx.verify('not a proof', resource, Date.now())).rejects.toMatchObject(failedLoad);
      const signer = createReceiptSigner(server.url, newSigningKey());
      await expect(signer.receipt(resource, `0x${'1'.repeat(40)}`, Date.now())).rejects.toMatchObject(failedLoad);
      await expect(receiptExtension({ format: 'jws', signature: 'x' })).rejects.toMatchObject(failedLoad);
    } finally {
      vi.doUnmock('@x402/extensions/sign-in-with-x');
      vi.doUnmock('@x402/extensions/offer-receipt');
    }
  });
});
