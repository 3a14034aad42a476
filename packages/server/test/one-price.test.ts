import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { LearningFull, LearningSnippet } from '@axle/sdk';
import { x402Client } from '@x402/core/client';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../src/clock.js';
import { learningsStore } from '../src/store/learnings.js';
import { startTestServer, type TestServer } from '../../../test/support/server.js';
import { post } from '../../../test/support/identity.js';
import { getUnlock, newBuyer, seedLearning, signAuthorization, v1Header } from './money-helpers.js';

const PAY_TO = '0x000000000000000000000000000000000000a11e';
let server: TestServer;
const clients: Client[] = [];

beforeAll(async () => {
  server = await startTestServer({}, { clock: new ManualClock(Date.now()) });
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await server.stop();
});

/**
 * A learning whose stored price is stale against its dynamic price (as after demand moved): the search must
 * show, and every unlock path then charge, one and the same price.
 */
async function staleLearning(word: string) {
  const l = await seedLearning(server, {
    title: `one price ${word} learning about cache stampedes`,
    body: `When the ${word} cache expires every worker recomputes at once; add jitter and a single-flight lock. `.repeat(
      3,
    ),
    currentPriceMicro: 50_000,
    qualityScore: 20,
    // Searchable like a published learning: a seq (the full-text row id; triggers keep its index row).
    seq: await learningsStore.nextSeq(server.db),
  });
  return l;
}

async function searchPrice(word: string, id: string, key?: string): Promise<number> {
  const res = await post(server, '/knowledge', { query: `${word} cache stampedes` }, key ? { 'x-api-key': key } : {});
  const hit = ((await res.json()) as { results: LearningSnippet[] }).results.find((r) => r.id === id)!;
  expect(hit.current_price).toBeGreaterThan(0.05);
  return hit.current_price;
}

async function mcp(key?: string) {
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
    requestInit: { headers: key ? { authorization: `Bearer ${key}` } : {} },
  });
  const client = new Client({ name: 'one-price-test', version: '0.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

describe('one price: what a search shows is what an unlock right after it charges', () => {
  it('key (credit) path: _revenue.unlock_price_usd and amount_paid_usd equal the searched current_price', async () => {
    const l = await staleLearning('quokka');
    const buyer = await newBuyer(server, { credits: 1 });
    const shown = await searchPrice('quokka', l.id, buyer.key);
    const full = (await (await getUnlock(server, l.id, { 'x-api-key': buyer.key })).json()) as LearningFull;
    expect(full._revenue).toMatchObject({ unlock_price_usd: shown, amount_paid_usd: shown });
    expect(full.current_price).toBe(shown);
    expect(full.pricing.current_price).toBe(shown);
    // The SPEC's unlock_price / unlock_price_usd on the learning is the contributor's setting (the floor here).
    expect(full.unlock_price).toBe(0.05);
    const row = await server.db.get<{ gross_micro: number }>('SELECT gross_micro FROM unlocks WHERE learning_id = ?', [
      l.id,
    ]);
    expect(row!.gross_micro).toBe(Math.round(shown * 1_000_000));
  });

  it('x402 REST path: the 402 asks the searched price, and paying it is charged exactly that', async () => {
    const l = await staleLearning('wombat');
    const shown = await searchPrice('wombat', l.id);
    const required = (await (await getUnlock(server, l.id)).json()) as {
      accepts: Array<{ maxAmountRequired: string }>;
    };
    expect(Number(required.accepts[0]!.maxAmountRequired)).toBe(Math.round(shown * 1_000_000));
    const payer = privateKeyToAccount(generatePrivateKey());
    const header = v1Header(
      await signAuthorization(payer, {
        to: PAY_TO,
        value: Math.round(shown * 1_000_000),
        validBefore: BigInt(Math.floor(server.clock.now() / 1000) + 120),
      }),
    );
    const full = (await (await getUnlock(server, l.id, { 'x-payment': header })).json()) as LearningFull;
    expect(full._revenue).toMatchObject({ unlock_price_usd: shown, amount_paid_usd: shown });
  });

  it('a 402 stays payable for its validity when a search reprices the learning meanwhile, then no longer', async () => {
    const l = await staleLearning('dugong');
    const shown = Math.round((await searchPrice('dugong', l.id)) * 1_000_000);
    const required = (await (await getUnlock(server, l.id)).json()) as {
      accepts: Array<{ maxAmountRequired: string }>;
    };
    expect(Number(required.accepts[0]!.maxAmountRequired)).toBe(shown);
    // Another buyer's search moves the price before this buyer's payment arrives.
    await server.db.tx((q) => learningsStore.reprice(q, l.id, shown + 1_000, server.clock.now()));
    const authorize = async () =>
      v1Header(
        await signAuthorization(privateKeyToAccount(generatePrivateKey()), {
          to: PAY_TO,
          value: shown,
          validBefore: BigInt(Math.floor(server.clock.now() / 1000) + 120),
        }),
      );
    const paid = (await (await getUnlock(server, l.id, { 'x-payment': await authorize() })).json()) as LearningFull;
    expect(paid._revenue).toMatchObject({ unlock_price_usd: shown / 1_000_000, amount_paid_usd: shown / 1_000_000 });
    // Past the 402's validity (300 s) only the current price is payable.
    server.clock.advance(301_000);
    const late = await getUnlock(server, l.id, { 'x-payment': await authorize() });
    expect(late.status).toBe(402);
    expect(((await late.json()) as { error: string }).error).toMatch(`does not equal the price ${shown + 1_000}`);
  });

  it('MCP path: svc_knowledge shows the price svc_unlock charges, by credit and by x402', async () => {
    server.clock.set(Date.now()); // @x402/core's client signs against the wall clock
    const byCredit = await staleLearning('numbat');
    const buyer = await newBuyer(server, { credits: 1 });
    const keyed = await mcp(buyer.key);
    const found = (await keyed.callTool({
      name: 'svc_knowledge',
      arguments: { query: 'numbat cache stampedes' },
    })) as CallToolResult;
    const shown = (found.structuredContent as { results: LearningSnippet[] }).results.find(
      (r) => r.id === byCredit.id,
    )!.current_price;
    const unlocked = (await keyed.callTool({
      name: 'svc_unlock',
      arguments: { learning_id: byCredit.id },
    })) as CallToolResult;
    expect((unlocked.structuredContent as LearningFull)._revenue).toMatchObject({
      unlock_price_usd: shown,
      amount_paid_usd: shown,
    });

    const byPayment = await staleLearning('bilby');
    const anon = await mcp();
    const seen = (await anon.callTool({
      name: 'svc_knowledge',
      arguments: { query: 'bilby cache stampedes' },
    })) as CallToolResult;
    const price = (seen.structuredContent as { results: LearningSnippet[] }).results.find(
      (r) => r.id === byPayment.id,
    )!.current_price;
    const first = (await anon.callTool({
      name: 'svc_unlock',
      arguments: { learning_id: byPayment.id },
    })) as CallToolResult;
    const required = first.structuredContent as { accepts: Array<{ amount: string }> };
    expect(Number(required.accepts[0]!.amount)).toBe(Math.round(price * 1_000_000));
    const payer = new x402Client();
    registerExactEvmScheme(payer, { signer: privateKeyToAccount(generatePrivateKey()) });
    const paid = (await anon.callTool({
      name: 'svc_unlock',
      arguments: { learning_id: byPayment.id },
      _meta: { 'x402/payment': await payer.createPaymentPayload(required as never) },
    })) as CallToolResult;
    expect((paid.structuredContent as LearningFull)._revenue).toMatchObject({
      unlock_price_usd: price,
      amount_paid_usd: price,
    });
  });
});
