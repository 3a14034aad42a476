// The money phases of `npm run bench`, on a server of their own with the same /health baseline:
// unlocks on the key path (each a durable transaction: credit, unlock row, ledger entry and
// balance, demand) and unlocks paid by x402 with a fresh authorization each (offline EIP-712
// verification, replay claim, local settlement), then the ledger check over that data dir.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { decodePayment } from '../packages/server/dist/payments/x402-payload.js';
import { verifyAuthorization } from '../packages/server/dist/payments/x402-verify.js';
import { ledgerCheck } from '../packages/server/dist/scripts/ledger-check.js';
import { findOrCreateAccount } from '../packages/server/dist/services/accounts.js';
import { createKey } from '../packages/server/dist/services/api-keys.js';
import { creditsStore } from '../packages/server/dist/store/credits.js';
import { Database } from '../packages/server/dist/store/db.js';
import { learningsStore } from '../packages/server/dist/store/learnings.js';
import { migrate } from '../packages/server/dist/store/migrate.js';
import { approvedRow } from './lib/learnings.js';
import { startServer } from './lib/server.js';
import { paymentHeader } from './lib/x402.js';

const PAY_TO = '0x000000000000000000000000000000000000a11e';
const PRICE = 80_000;

function learning(i, now) {
  const tail = randomBytes(8).toString('hex');
  const body = `Bench learning ${i}: retry with jittered backoff and resume from the last checkpoint; ${tail}.`;
  return approvedRow(
    {
      id: `lrn_bench${i}${randomBytes(4).toString('hex')}`,
      category: 'storage-state',
      title: `Bench learning number ${i}`,
      body,
      bodyHash: randomBytes(32).toString('hex'),
      tags: ['bench'],
      taskContext: 'bench',
      outcome: 'success',
      contributorWallet: `0x${(i % 50).toString(16).padStart(40, '0')}`,
      contributorAgent: 'bench/1.0',
      basePriceMicro: PRICE,
      currentPriceMicro: PRICE,
      complexity: 'medium',
      qualityScore: 16,
    },
    now,
  );
}

/** Rotates through `items`, one request each, for `seconds`. */
/** A client address of its own for the i-th paid unlock. */
const addressOf = (i) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;

function rotating(url, items, headersOf, { connections, seconds }) {
  let i = 0;
  return autocannon({
    url,
    connections,
    duration: seconds,
    requests: [
      {
        setupRequest: (req) => {
          const it = items[i++ % items.length];
          return { ...req, path: `/knowledge/${it.id}`, headers: { ...req.headers, ...headersOf(it) } };
        },
      },
    ],
  });
}

export async function measureMoney({ summary, hammerHealth, connections, seconds }) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'axle-bench-money-'));
  try {
    // Seed before the server starts: enough fresh (buyer, learning) pairs that no unlock is a repeat.
    const db = await Database.open(path.join(dataDir, 'axle.db'));
    const now = Date.now();
    await migrate(db, undefined, now);
    const keyLearnings = [];
    const payLearnings = [];
    let apiKey;
    await db.tx(async (q) => {
      const account = await findOrCreateAccount(q, 'bench-buyer@example.com', now);
      apiKey = (await createKey(q, account.id, {}, now)).api_key;
      // The credits come with the purchase that paid for them, which ledger:check holds credit unlocks against.
      await creditsStore.add(q, account.id, 1_000_000, 0, 1_000_000 * 100_000, now);
      await creditsStore.insertPurchase(q, {
        id: 'pur_bench',
        account_id: account.id,
        pack_id: 'starter',
        amount_micro: 1_000_000 * 100_000,
        queries_added: 0,
        unlocks_added: 1_000_000,
        checkout_session_id: 'cs_bench',
        created_at: now,
        payment_intent: null,
        reversed_cents: 0,
        reversed_unlocks: 0,
        reversed_queries: 0,
        revoked_unlocks: 0,
      });
      for (let i = 0; i < 6000; i++) {
        const l = learning(i, now);
        await learningsStore.insert(q, l);
        (i < 4000 ? keyLearnings : payLearnings).push(l);
      }
    });
    await db.close();

    // Anonymous paid unlocks are limited per client address (60 a minute): the x402 phase sends each payment from
    // an address of its own, behind a trusted proxy, so the limit's count is measured and never met.
    const server = await startServer({ dataDir, env: { AXLE_SEMANTIC_SEARCH: 'off', AXLE_TRUST_PROXY: 'true' } });
    const out = {};
    try {
      out.health = await hammerHealth(server.url, server.pid);
      out.key = summary(
        await rotating(server.url, keyLearnings, () => ({ 'x-api-key': apiKey }), { connections, seconds }),
      );
      // Fresh authorizations, signed before the phase so the bench's own signing does not compete with the server.
      // One wallet, but each payment is its first unlock of its learning (a resent one is refused as used): neither
      // counts toward the wallet's limit on repeats (LIMITS.accountWrites.walletRepeatUnlock), and settled offline none
      // is refused (walletRefusedPayment).
      const payer = privateKeyToAccount(generatePrivateKey());
      const nowSec = Math.floor(Date.now() / 1000);
      const headers = new Map();
      for (const l of payLearnings)
        headers.set(l.id, await paymentHeader(payer, { payTo: PAY_TO, priceMicro: PRICE, nowSec }));
      const addresses = new Map(payLearnings.map((l, i) => [l.id, addressOf(i)]));
      out.x402 = summary(
        await rotating(
          server.url,
          payLearnings,
          (l) => ({ 'x-payment': headers.get(l.id), 'x-forwarded-for': addresses.get(l.id) }),
          { connections, seconds },
        ),
      );
      // CPU of one verification in this process: decode, checks and signature recovery.
      const sample = [...headers.values()].slice(0, 500);
      for (const h of sample.slice(0, 50))
        await verifyAuthorization(
          decodePayment(h),
          { priceMicro: PRICE, payTo: PAY_TO, maxTimeoutSeconds: 300 },
          Date.now(),
        );
      const before = process.cpuUsage();
      for (const h of sample)
        await verifyAuthorization(
          decodePayment(h),
          { priceMicro: PRICE, payTo: PAY_TO, maxTimeoutSeconds: 300 },
          Date.now(),
        );
      const used = process.cpuUsage(before);
      out.verifyCpuUs = (used.user + used.system) / sample.length;
    } finally {
      await server.stop();
    }
    const lines = [];
    out.ledgerExit = await ledgerCheck({ AXLE_DATA_DIR: dataDir }, (l) => lines.push(l));
    out.ledger = JSON.parse(lines[0]);
    return out;
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
