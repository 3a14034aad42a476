import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { API_KEY_SCOPES, CURRENT_TOS_VERSION } from '@axle/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { findOrCreateAccount } from '../src/services/accounts.js';
import { createKey } from '../src/services/api-keys.js';
import { checkLedger } from '../src/services/ledger-check.js';
import { createPayouts } from '../src/services/payouts.js';
import { createLogger } from '../src/logger.js';
import { localPayoutSender } from '../src/payments/payout-sender.js';
import { leasesStore } from '../src/store/leases.js';
import { openSettlement, recordUnlock } from '../src/services/ledger.js';
import { Database } from '../src/store/db.js';
import { ledgerStore } from '../src/store/ledger.js';
import { migrate } from '../src/store/migrate.js';
import { termsStore } from '../src/store/terms.js';
import { walletsStore } from '../src/store/wallets.js';
import { listeningUrl, serverProcessEnv } from '../../../test/support/process.js';
import { startTestServer, type TestServer } from '../../../test/support/server.js';
import { post } from '../../../test/support/identity.js';
import { boughtCredits, ledgerCheckWithProcessor, onboardedEarner } from './money-helpers.js';
import { type ProcessorStandIn, startProcessorStandIn } from './processor-standin.js';

const SECRET = 'sk_test_axle';
const ADMIN = 'a'.repeat(32);
const admin = { authorization: `Bearer ${ADMIN}` };

describe('card payouts exactly once (in process)', () => {
  let server: TestServer;
  let standIn: ProcessorStandIn;
  beforeAll(async () => {
    standIn = await startProcessorStandIn(SECRET);
    server = await startTestServer({
      AXLE_CUSTODIAL_WITHDRAWALS: 'true',
      AXLE_PROCESSOR_SECRET_KEY: SECRET,
      AXLE_PROCESSOR_API_URL: standIn.url,
      AXLE_PROCESSOR_TIMEOUT_MS: '150',
      AXLE_ADMIN_TOKEN: ADMIN,
    });
  });
  afterAll(async () => {
    await server.stop();
    await standIn.close();
  });

  const onboarded = (priceMicro: number) => onboardedEarner(server, standIn, priceMicro);
  const pay = (key: string, amount_usd: number) =>
    post(server, '/withdraw/processor', { amount_usd }, { 'x-api-key': key });

  it('fault 2: a processor that times out after accepting is paid once; the retry is refused, reconciliation confirms', async () => {
    const e = await onboarded(5_000_000);
    standIn.setTransferMode('slow');
    const first = await pay(e.key, 1);
    expect(first.status).toBe(202);
    const timedOut = (await first.json()) as {
      status: string;
      settlement_id: string;
      payout_id: null;
      poll_url: string;
    };
    expect(timedOut).toMatchObject({ status: 'processing_timeout', payout_id: null, poll_url: expect.any(String) });
    // The SDK's own retry went out under the same idempotency key: the processor made one transfer.
    const sent = standIn.requests.filter((r) => r.path === '/v1/transfers' && r.method === 'POST');
    expect(sent.length).toBeGreaterThanOrEqual(1);
    expect(new Set(sent.map((r) => r.idempotencyKey))).toEqual(new Set([timedOut.settlement_id]));
    expect(standIn.transfers.filter((t) => t.transfer_group === timedOut.settlement_id)).toHaveLength(1);
    // The balance stays debited; a retry while the outcome is unknown is refused, not paid again.
    expect((await ledgerStore.balance(server.db, e.accountId)).pending_micro).toBe(2_500_000);
    const retry = await pay(e.key, 1);
    expect(retry.status).toBe(409);
    expect(await retry.json()).toMatchObject({ code: 'WITHDRAWAL_IN_FLIGHT', settlement_id: timedOut.settlement_id });
    standIn.setTransferMode('normal');
    standIn.release();

    const stuck = (await (await fetch(`${server.url}/admin/settlements/unresolved`, { headers: admin })).json()) as {
      settlements: Array<{ id: string; status: string }>;
    };
    expect(stuck.settlements).toContainEqual(
      expect.objectContaining({ id: timedOut.settlement_id, status: 'processing_timeout' }),
    );
    const resolved = await fetch(`${server.url}/admin/settlements/${timedOut.settlement_id}/reconcile`, {
      method: 'POST',
      headers: admin,
    });
    const transfer = standIn.transfers.find((t) => t.transfer_group === timedOut.settlement_id)!;
    expect(await resolved.json()).toMatchObject({ status: 'confirmed', payout_id: transfer.id, amount_usd: 1 });
    // The retry now is a new withdrawal: one more transfer, under its own key.
    const again = await pay(e.key, 1);
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ status: 'confirmed', amount: 1 });
    expect(standIn.transfers.filter((t) => t.destination === e.destination).map((t) => t.amount)).toEqual([100, 100]);
    expect((await ledgerStore.balance(server.db, e.accountId)).pending_micro).toBe(1_500_000);
    expect(await checkLedger(server.db)).toEqual([]);
    expect(await ledgerCheckWithProcessor(server.dataDir, standIn)).toMatchObject({ code: 0, report: { ok: true } });
  });

  it('a client retry with the same Idempotency-Key answers the same payout, before and after it is known', async () => {
    const e = await onboarded(5_000_000);
    const withKey = (amount_usd: number) =>
      post(server, '/withdraw/processor', { amount_usd }, { 'x-api-key': e.key, 'idempotency-key': 'req-1' });
    standIn.setTransferMode('slow');
    const first = (await (await withKey(1)).json()) as { settlement_id: string; status: string };
    expect(first.status).toBe('processing_timeout');
    const retry = await withKey(1);
    expect(retry.status).toBe(202);
    expect(await retry.json()).toMatchObject({ settlement_id: first.settlement_id, status: 'processing_timeout' });
    standIn.setTransferMode('normal');
    standIn.release();
    await fetch(`${server.url}/admin/settlements/${first.settlement_id}/reconcile`, { method: 'POST', headers: admin });
    const later = await withKey(1);
    expect(later.status).toBe(200);
    const transfer = standIn.transfers.find((t) => t.transfer_group === first.settlement_id)!;
    expect(await later.json()).toMatchObject({ settlement_id: first.settlement_id, payout_id: transfer.id });
    expect((await withKey(2)).status).toBe(409);
    expect(standIn.transfers.filter((t) => t.destination === e.destination)).toHaveLength(1);
    expect((await ledgerStore.balance(server.db, e.accountId)).pending_micro).toBe(2_500_000);
  });

  it('a refusal by the processor fails the payout and gives the amount back; admin routes need their scopes', async () => {
    const e = await onboarded(2_000_000);
    standIn.setTransferMode('refuse');
    const res = await pay(e.key, 1);
    standIn.setTransferMode('normal');
    expect(res.status).toBe(502);
    expect(await res.json()).toMatchObject({ error: expect.stringMatching(/refused.*nothing was withdrawn/) });
    expect((await ledgerStore.balance(server.db, e.accountId)).pending_micro).toBe(1_400_000);
    expect((await fetch(`${server.url}/admin/settlements/unresolved`)).status).toBe(401);
    expect(
      (await fetch(`${server.url}/admin/settlements/set_nope/reconcile`, { method: 'POST', headers: admin })).status,
    ).toBe(404);
    expect(await checkLedger(server.db)).toEqual([]);
  });

  it('fault 3 as it was left before this fix (no destination, no transfer_group): reconciliation resolves it', async () => {
    const e = await onboarded(5_000_000);
    // A withdrawal stuck pending by the old code after its transfer reached the processor (tagged only with
    // metadata, under the settlement id as idempotency key).
    const sent = await server.db.tx((q) =>
      openSettlement(q, {
        holder: e.accountId,
        wallet: null,
        rail: 'processor',
        amountMicro: 1_000_000,
        pollUrl: '/p',
        now: server.clock.now(),
      }),
    );
    const old = await fetch(`${standIn.url}/v1/transfers`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${SECRET}`,
        'idempotency-key': sent.id,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({
        amount: '100',
        currency: 'usd',
        destination: e.destination,
        'metadata[settlement_id]': sent.id,
      }),
    });
    const oldTransfer = (await old.json()) as { id: string };
    const res = await fetch(`${server.url}/admin/settlements/${sent.id}/reconcile`, { method: 'POST', headers: admin });
    expect(await res.json()).toMatchObject({ status: 'confirmed', payout_id: oldTransfer.id });
    // The one that never reached the processor is sent now, to the account's payout account.
    const never = await server.db.tx((q) =>
      openSettlement(q, {
        holder: e.accountId,
        wallet: null,
        rail: 'processor',
        amountMicro: 500_000,
        pollUrl: '/p',
        now: server.clock.now(),
      }),
    );
    const again = await fetch(`${server.url}/admin/settlements/${never.id}/reconcile`, {
      method: 'POST',
      headers: admin,
    });
    expect(await again.json()).toMatchObject({ status: 'confirmed', payout_id: expect.stringMatching(/^tr_/) });
    expect(standIn.transfers.filter((t) => t.destination === e.destination).map((t) => t.amount)).toEqual([100, 50]);
    expect(await checkLedger(server.db)).toEqual([]);
    expect(await ledgerCheckWithProcessor(server.dataDir, standIn)).toMatchObject({ code: 0 });
  });

  it('one instance at a time runs a reconciliation pass: the lease turns others away until it lapses', async () => {
    const logger = createLogger('silent');
    const instance = () =>
      createPayouts({ db: server.db, clock: server.clock, logger, sender: localPayoutSender, leaseMs: 60_000 });
    const [a, b] = [instance(), instance()];
    // An instance that died mid-pass still holds the lease.
    const now = server.clock.now();
    expect(await leasesStore.take(server.db, 'payout-reconciler', 'inst_dead', now, now + 60_000)).toBe(true);
    expect(await a.runPass()).toBeNull();
    expect(await b.runPass()).toBeNull();
    server.clock.advance(60_000);
    expect(await a.runPass()).toMatchObject({ unresolved: expect.any(Number) });
    // A finished pass gives the lease back at once.
    expect(await b.runPass()).not.toBeNull();
  });

  // Found by having an instance whose clock ran a year ahead die mid-pass: its lease ran out a year later by every
  // other instance's clock, and until then no instance reconciled payouts.
  it('a lease left by an instance whose clock ran far ahead turns the others away no longer than a lease lasts', async () => {
    const a = createPayouts({
      db: server.db,
      clock: server.clock,
      logger: createLogger('silent'),
      sender: localPayoutSender,
      leaseMs: 60_000,
    });
    const ahead = server.clock.now() + 365 * 24 * 3_600_000;
    expect(await leasesStore.take(server.db, 'payout-reconciler', 'inst_dead', ahead, ahead + 60_000)).toBe(true);
    expect(await a.runPass()).not.toBeNull();
  });

  it('one pass at a time on one instance too: a start-up pass and the scheduled one do not both send', async () => {
    const e = await onboarded(2_000_000);
    // A withdrawal whose request died after the debit: reconciliation sends it, and the processor takes its time.
    const opened = await server.db.tx((q) =>
      openSettlement(q, {
        holder: e.accountId,
        wallet: null,
        rail: 'processor',
        amountMicro: 500_000,
        destination: e.destination,
        pollUrl: '/p',
        now: server.clock.now(),
      }),
    );
    const logger = createLogger('silent');
    const { stripeProcessor } = await import('../src/payments/card-processor.js');
    const processor = await stripeProcessor({ secretKey: SECRET, apiUrl: standIn.url, timeoutMs: 5_000 });
    const instance = createPayouts({
      db: server.db,
      clock: server.clock,
      logger,
      sender: localPayoutSender,
      processor,
    });
    standIn.setTransferMode('slow', e.destination);
    const sent = standIn.nextTransfer();
    const first = instance.runPass();
    await sent;
    // The same instance starts another pass (the start-up one beside the scheduled one) while the first waits.
    expect(await instance.runPass()).toBeNull();
    standIn.setTransferMode('normal');
    standIn.release();
    expect(await first).toMatchObject({ confirmed: expect.any(Number) });
    const posts = standIn.requests.filter(
      (r) => r.method === 'POST' && r.path === '/v1/transfers' && r.idempotencyKey === opened.id,
    );
    expect(posts).toHaveLength(1);
    expect(await ledgerStore.settlement(server.db, opened.id)).toMatchObject({ status: 'confirmed' });
  });

  it('ledger:check reports a confirmed card payout whose transfer the processor reversed afterwards', async () => {
    const e = await onboarded(2_000_000);
    const res = await pay(e.key, 1);
    expect(await res.json()).toMatchObject({ status: 'confirmed' });
    expect(await ledgerCheckWithProcessor(server.dataDir, standIn)).toMatchObject({ code: 0 });
    // Reversed at the processor (the dashboard, a closed payout account): the money is back with the platform
    // while the ledger still shows it withdrawn.
    const transfer = standIn.transfers.find((t) => t.destination === e.destination)!;
    transfer.reversed = true;
    try {
      const { code, report } = await ledgerCheckWithProcessor(server.dataDir, standIn);
      expect(code).toBe(1);
      expect(report.problems).toEqual([
        expect.stringMatching(new RegExp(`^confirmed card payout whose transfer was reversed.*${transfer.id}`)),
      ]);
    } finally {
      transfer.reversed = false;
    }
    // Partly reversed (the processor keeps `reversed` false until all of it is back): the same, for the part.
    transfer.amount_reversed = 40;
    try {
      const { code, report } = await ledgerCheckWithProcessor(server.dataDir, standIn);
      expect(code).toBe(1);
      expect(report.problems).toEqual([
        expect.stringMatching(new RegExp(`^confirmed card payout whose transfer was reversed.*${transfer.id}.*40`)),
      ]);
    } finally {
      transfer.amount_reversed = 0;
    }
  });

  it('ledger:check reports a transfer the processor holds that no confirmed settlement accounts for', async () => {
    const e = await onboarded(2_000_000);
    // A transfer sent outside the server (or a second one for a settlement) is money the ledger does not show.
    await fetch(`${standIn.url}/v1/transfers`, {
      method: 'POST',
      headers: { authorization: `Bearer ${SECRET}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        amount: '100',
        currency: 'usd',
        destination: e.destination,
        transfer_group: 'set_x',
      }),
    });
    const { code, report } = await ledgerCheckWithProcessor(server.dataDir, standIn);
    expect(code).toBe(1);
    expect(report.problems).toEqual([
      expect.stringMatching(/^processor transfer matches no confirmed settlement.*set_x/),
    ]);
    standIn.transfers.pop();
  });
});

// The built server, as `npm start` runs it.
const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));

describe('card payouts across a SIGKILL (real server process)', () => {
  let standIn: ProcessorStandIn;
  let dataDir: string;
  let child: ChildProcess | undefined;
  beforeAll(async () => {
    standIn = await startProcessorStandIn(SECRET);
  });
  afterEach(() => {
    if (child?.exitCode === null) child.kill('SIGKILL');
  });
  afterAll(async () => {
    await standIn.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const start = async () => {
    child = spawn(process.execPath, [MAIN], {
      env: serverProcessEnv(dataDir, {
        AXLE_CUSTODIAL_WITHDRAWALS: 'true',
        AXLE_PROCESSOR_SECRET_KEY: SECRET,
        AXLE_PROCESSOR_API_URL: standIn.url,
        AXLE_ADMIN_TOKEN: ADMIN,
      }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return listeningUrl(child);
  };
  const kill = async () => {
    const exited = new Promise((r) => child!.once('exit', r));
    child!.kill('SIGKILL');
    await exited;
  };
  /** Unresolved settlements as the admin route shows them, once the start-up reconciliation has had its turn. */
  async function unresolvedAfterStart(url: string) {
    for (let i = 0; i < 200; i++) {
      const { settlements } = (await (
        await fetch(`${url}/admin/settlements/unresolved`, { headers: admin })
      ).json()) as {
        settlements: unknown[];
      };
      if (settlements.length === 0) return settlements;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error('settlements still unresolved 5 s after start');
  }

  it('fault 3: killed after the processor took the transfer, or before it got it: restart reconciles, one transfer each', async () => {
    expect(fs.existsSync(MAIN), `${MAIN} missing: run npx tsc -b first`).toBe(true);
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'axle-payout-kill-'));
    // Two contributors with $7 earned each, terms accepted, a key and an onboarded payout account.
    const db = await Database.open(path.join(dataDir, 'axle.db'));
    await migrate(db);
    const now = Date.now();
    const contributor = (n: number) =>
      db.tx(async (q) => {
        const account = await findOrCreateAccount(q, `payee${n}@example.com`, now);
        const destination = `acct_kill${n}`;
        standIn.completeOnboarding(destination);
        await termsStore.insert(q, {
          account_id: account.id,
          version: CURRENT_TOS_VERSION,
          accepted_at: now,
          via: 'jwt',
          audit_ref: 'aud_t',
        });
        await walletsStore.setPayoutAccount(q, account.id, destination, now);
        await boughtCredits(q, 'acc_buyer', 10_000_000);
        await recordUnlock(q, {
          learningId: `lrn_k${n}`,
          buyer: 'acc_buyer',
          path: 'key',
          paidMicro: 10_000_000,
          discovery: false,
          selfDealing: false,
          accrualCapped: false,
          payee: { holder: account.id, held: false },
          now,
        });
        const created = await createKey(q, account.id, { scopes: API_KEY_SCOPES }, now);
        return { accountId: account.id, key: created.api_key, destination };
      });
    const sent = await contributor(1);
    const unsent = await contributor(2);
    await db.close();
    const withdraw = (url: string, key: string, amount_usd: number) =>
      fetch(`${url}/withdraw/processor`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ amount_usd }),
      });

    let url = await start();
    // The first one's transfer is created and its answer never comes back (killed between "sent" and
    // "recorded"); the second one's request never reaches the processor (killed before "sent").
    standIn.setTransferMode('slow', sent.destination);
    standIn.setTransferMode('hang', unsent.destination);
    const created = standIn.nextTransfer();
    const reached = standIn.nextRequest(
      (p, _q, form) => p === '/v1/transfers' && form.get('destination') === unsent.destination,
    );
    void withdraw(url, sent.key, 2).catch(() => undefined);
    const sentBeforeKill = await created;
    void withdraw(url, unsent.key, 3).catch(() => undefined);
    await reached;
    await kill();
    expect(standIn.transfers.map((t) => t.destination)).toEqual([sent.destination]);
    standIn.setTransferMode('normal');
    standIn.release();

    // Restart: the start-up reconciliation finds the first transfer and sends the second under its own key.
    url = await start();
    expect(await unresolvedAfterStart(url)).toEqual([]);
    // Withdrawals are not blocked: the next one pays.
    expect((await withdraw(url, sent.key, 1)).status).toBe(200);
    expect((await withdraw(url, unsent.key, 1)).status).toBe(200);
    await kill();

    const to = (d: string) => standIn.transfers.filter((t) => t.destination === d);
    expect(to(sent.destination).map((t) => t.amount)).toEqual([200, 100]);
    expect(to(sent.destination)[0]!.id).toBe(sentBeforeKill.id);
    expect(to(unsent.destination).map((t) => t.amount)).toEqual([300, 100]);
    const check = await Database.open(path.join(dataDir, 'axle.db'));
    try {
      for (const c of [sent, unsent]) {
        const settlements = await ledgerStore.settlementsFor(check, c.accountId, 10);
        expect(settlements.map((s) => [s.status, s.amount_micro, s.payout_id]).sort()).toEqual(
          to(c.destination)
            .map((t) => ['confirmed', t.amount * 10_000, t.id])
            .sort(),
        );
      }
      expect((await ledgerStore.balance(check, sent.accountId)).pending_micro).toBe(4_000_000);
      expect((await ledgerStore.balance(check, unsent.accountId)).pending_micro).toBe(3_000_000);
      expect(await checkLedger(check)).toEqual([]);
    } finally {
      await check.close();
    }
    expect(await ledgerCheckWithProcessor(dataDir, standIn)).toMatchObject({
      code: 0,
      report: { ok: true, processor_transfers_checked: standIn.transfers.length },
    });
  }, 60_000);
});
