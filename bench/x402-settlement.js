// x402 unlock throughput with settlement on a local chain against offline verification, in the same run:
// `node bench/x402-settlement.js` (after `npm run build`). Two built servers on loopback with the same seeded
// learnings: one verifying offline only (no settlement configured), one settling each payment itself on a ganache
// chain (AXLE_RPC_URL + AXLE_SETTLEMENT_KEY: simulate, sign, record, broadcast, receipt). Every request is a fresh
// authorization from a funded payer for a learning it has not bought, pre-signed so the bench's own signing does
// not compete; the phases alternate offline/chain twice and each mode's better round counts.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { Database } from '../packages/server/dist/store/db.js';
import { learningsStore } from '../packages/server/dist/store/learnings.js';
import { migrate } from '../packages/server/dist/store/migrate.js';
import { startLocalChain } from '../packages/server/test/chain/local-chain.js';
import { approvedRow } from './lib/learnings.js';
import { startServer } from './lib/server.js';
import { paymentHeader } from './lib/x402.js';

const PAY_TO = '0x000000000000000000000000000000000000a11e';
const PRICE = 80_000;
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 150);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const ROUNDS = 2;

async function seed(dataDir, n, now) {
  const db = await Database.open(path.join(dataDir, 'axle.db'));
  await migrate(db, undefined, now);
  const ids = [];
  await db.tx(async (q) => {
    for (let i = 0; i < n; i++) {
      const id = `lrn_settle${i}${randomBytes(4).toString('hex')}`;
      await learningsStore.insert(
        q,
        approvedRow(
          {
            id,
            category: 'storage-state',
            title: `Settlement bench learning ${i}`,
            body: `Settlement bench learning ${i}: retry with jittered backoff; ${randomBytes(8).toString('hex')}.`,
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
        ),
      );
      ids.push(id);
    }
  });
  await db.close();
  return ids;
}

/** `items` ({id, header}) sent with CONCURRENCY requests in flight; unlocks a second and the statuses seen. */
async function run(url, items) {
  let next = 0;
  const statuses = {};
  const latencies = [];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < items.length) {
        const it = items[next++];
        const t = performance.now();
        const res = await fetch(`${url}/knowledge/${it.id}`, { headers: { 'x-payment': it.header } });
        await res.arrayBuffer();
        latencies.push(performance.now() - t);
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    rps: items.length / seconds,
    p50: latencies[Math.floor(latencies.length / 2)],
    p99: latencies[Math.floor(latencies.length * 0.99)],
    statuses,
  };
}

const chain = await startLocalChain();
const dirs = [];
const servers = [];
try {
  const now = Date.now();
  const mk = () => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'axle-bench-settle-'));
    dirs.push(d);
    return d;
  };
  const n = REQUESTS * ROUNDS;
  const offlineDir = mk();
  const chainDir = mk();
  const [offlineIds, chainIds] = [await seed(offlineDir, n, now), await seed(chainDir, n, now)];
  const env = { AXLE_SEMANTIC_SEARCH: 'off' };
  const offline = await startServer({ dataDir: offlineDir, env });
  servers.push(offline);
  const onChain = await startServer({
    dataDir: chainDir,
    env: { ...env, AXLE_RPC_URL: chain.rpcUrl, AXLE_SETTLEMENT_KEY: chain.settlementKey },
  });
  servers.push(onChain);
  const payer = privateKeyToAccount(generatePrivateKey());
  await chain.mint(payer.address, BigInt(PRICE * n));
  const items = async (ids) =>
    Promise.all(
      ids.map(async (id) => ({ id, header: await paymentHeader(payer, { payTo: PAY_TO, priceMicro: PRICE }) })),
    );
  const [offlineItems, chainItems] = [await items(offlineIds), await items(chainIds)];
  const best = { offline: undefined, chain: undefined };
  for (let r = 0; r < ROUNDS; r++) {
    for (const [mode, url, list] of [
      ['offline', offline.url, offlineItems],
      ['chain', onChain.url, chainItems],
    ]) {
      const res = await run(url, list.slice(r * REQUESTS, (r + 1) * REQUESTS));
      console.log(
        `round ${r + 1} ${mode}: ${res.rps.toFixed(1)} unlocks/s, p50 ${res.p50.toFixed(1)} ms, p99 ${res.p99.toFixed(1)} ms, statuses ${JSON.stringify(res.statuses)}`,
      );
      if (!best[mode] || res.rps > best[mode].rps) best[mode] = res;
    }
  }
  const moved = BigInt(PRICE * n) - (await chain.balanceOf(payer.address));
  console.log(`USDC moved on chain by the chain server: ${moved} micro (${Number(moved) / PRICE} settlements)`);
  console.log(
    `x402 unlocks, ${REQUESTS} requests x ${ROUNDS} rounds, ${CONCURRENCY} in flight: offline ${best.offline.rps.toFixed(1)}/s, ` +
      `settled on chain ${best.chain.rps.toFixed(1)}/s; ratio chain/offline ${(best.chain.rps / best.offline.rps).toFixed(3)}`,
  );
} finally {
  for (const s of servers) await s.stop();
  await chain.close();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
}
