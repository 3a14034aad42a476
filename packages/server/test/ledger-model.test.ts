// A model test of the money paths against the real store: random interleavings of credit purchases, refunds and
// disputes (some inquiries, escalated when picked to win; some won: their funds reinstated), paid unlocks, card
// withdrawals (answered, refused, timed out), crashes
// between "sent" and "recorded" or before "sent", reconciliations and restarts (the SQLite file closed and reopened), with the ledger's
// invariants checked after every step. Quick by default (CI); AXLE_MODEL_RUNS=200 for a longer run.
// An x402 payment is claimed `verified` and its share waits (credit: false) until a settle step settles it (the
// share becomes earnings) or fails it (never).
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CURRENT_TOS_VERSION } from '@axle/sdk';
import fc from 'fast-check';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../src/clock.js';
import { createLogger } from '../src/logger.js';
import { type CardProcessor, stripeProcessor } from '../src/payments/card-processor.js';
import { localPayoutSender } from '../src/payments/payout-sender.js';
import { findOrCreateAccount } from '../src/services/accounts.js';
import { createCheckoutService } from '../src/services/checkout.js';
import { ledgerReport } from '../src/services/ledger-check.js';
import { balanceOf, creditSettled, openSettlement, recordUnlock } from '../src/services/ledger.js';
import { paymentClaimsStore } from '../src/store/payment-claims.js';
import { createPayouts } from '../src/services/payouts.js';
import { createRateLimiter } from '../src/services/rate-limit.js';
import { creditsStore } from '../src/store/credits.js';
import { Database } from '../src/store/db.js';
import { ledgerStore } from '../src/store/ledger.js';
import { migrate } from '../src/store/migrate.js';
import { termsStore } from '../src/store/terms.js';
import { walletsStore } from '../src/store/wallets.js';
import { type ProcessorStandIn, startProcessorStandIn } from './processor-standin.js';

const SECRET = 'sk_test_axle';
const WEBHOOK = 'whsec_model';
const RUNS = Number(process.env.AXLE_MODEL_RUNS ?? 6);
const signer = new Stripe(SECRET);
const logger = createLogger('silent');

type Step =
  | { kind: 'buy'; buyer: number; pack: 'starter' | 'growth' }
  | { kind: 'refund'; buyer: number; permille: number; dispute: 'no' | 'chargeback' | 'inquiry' }
  | { kind: 'win'; buyer: number; which: number }
  | { kind: 'pay'; buyer: number; contributor: number; priceMicro: number; byCredit: boolean; times: number }
  | { kind: 'settle'; which: number; ok: boolean }
  | { kind: 'withdraw'; contributor: number; cents: number; processor: 'normal' | 'slow' | 'refuse' }
  | { kind: 'crash'; contributor: number; cents: number; sent: boolean }
  | { kind: 'reconcile' }
  | { kind: 'restart' };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant('buy' as const),
    buyer: fc.nat(1),
    pack: fc.constantFrom('starter' as const, 'growth' as const),
  }),
  fc.record({
    kind: fc.constant('refund' as const),
    buyer: fc.nat(1),
    permille: fc.integer({ min: 1, max: 1000 }),
    dispute: fc.constantFrom('no' as const, 'chargeback' as const, 'inquiry' as const),
  }),
  // Weighted so that disputes are often won after credits were spent (an inquiry is escalated first).
  { arbitrary: fc.record({ kind: fc.constant('win' as const), buyer: fc.nat(1), which: fc.nat(7) }), weight: 3 },
  fc.record({
    kind: fc.constant('pay' as const),
    buyer: fc.nat(1),
    contributor: fc.nat(1),
    priceMicro: fc.integer({ min: 50_000, max: 5_000_000 }),
    byCredit: fc.boolean(),
    // Many credits at once, so reversals leave debts (and won disputes cancel them).
    times: fc.constantFrom(1, 1, 150),
  }),
  fc.record({ kind: fc.constant('settle' as const), which: fc.nat(7), ok: fc.boolean() }),
  fc.record({
    kind: fc.constant('withdraw' as const),
    contributor: fc.nat(1),
    cents: fc.integer({ min: 50, max: 400 }),
    processor: fc.constantFrom('normal' as const, 'normal' as const, 'slow' as const, 'refuse' as const),
  }),
  fc.record({
    kind: fc.constant('crash' as const),
    contributor: fc.nat(1),
    cents: fc.integer({ min: 50, max: 400 }),
    sent: fc.boolean(),
  }),
  fc.constant({ kind: 'reconcile' as const }),
  fc.constant({ kind: 'restart' as const }),
);

describe('ledger model: pay / refund / withdraw / timeout / crash / reconcile / restart on the real store', () => {
  let standIn: ProcessorStandIn;
  let processor: CardProcessor;
  let root: string;
  beforeAll(async () => {
    standIn = await startProcessorStandIn(SECRET);
    processor = await stripeProcessor({
      secretKey: SECRET,
      webhookSecret: WEBHOOK,
      apiUrl: standIn.url,
      timeoutMs: 150,
      maxNetworkRetries: 0,
    });
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'axle-model-'));
  });
  afterAll(async () => {
    await standIn.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('keeps the invariants after every step', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 5, maxLength: 30 }), async (steps) => {
        const file = path.join(root, `run-${++run}.db`);
        const clock = new ManualClock(Date.now());
        let db = await Database.open(file);
        await migrate(db);
        const open = () => ({
          payouts: createPayouts({ db, clock, logger, sender: localPayoutSender, processor }),
          checkout: createCheckoutService({
            db,
            clock,
            baseUrl: () => 'http://127.0.0.1:1',
            rateLimiter: createRateLimiter({ db, clock }),
            processor,
          }),
        });
        let svc = open();
        const now = clock.now();
        const ids = await db.tx(async (q) => {
          const made: string[] = [];
          for (const email of ['c0@x.test', 'c1@x.test', 'b0@x.test', 'b1@x.test']) {
            const a = await findOrCreateAccount(q, `${run}-${email}`, now);
            made.push(a.id);
          }
          for (const c of made.slice(0, 2)) {
            await termsStore.insert(q, {
              account_id: c,
              version: CURRENT_TOS_VERSION,
              accepted_at: now,
              via: 'jwt',
              audit_ref: 'aud_m',
            });
            await walletsStore.setPayoutAccount(q, c, `acct_${c}`, now);
          }
          return made;
        });
        const contributors = ids.slice(0, 2);
        const buyers = ids.slice(2);
        // The model: what each buyer's credits and debt must be, and every settlement id the server opened.
        const model = {
          owned: [0, 0],
          credits: [0, 0],
          debt: [0, 0],
          purchases: [[], []] as Array<
            Array<{
              pi: string;
              cents: number;
              unlocks: number;
              reversed: number;
              refunded: number;
              disputed: number;
              /** Debt unlocks this purchase's reversals made, less what won disputes cancelled. */
              owedMade: number;
              disputes: Array<{ id: string; cents: number; won: boolean; withdrawn: boolean }>;
            }>
          >,
        };
        const opened: string[] = [];
        // x402 payments verified but not yet settled, and each contributor's earnings as the model counts them.
        const open402: Array<{
          claim: { chainId: number; payer: string; nonce: string };
          unlockId: string;
          contributor: number;
          share: number;
        }> = [];
        const mine = () => standIn.transfers.filter((t) => opened.includes(t.transfer_group ?? ''));
        let evt = 0;
        const event = (type: string, object: object) => {
          const payload = JSON.stringify({ id: `evt_${run}_${++evt}`, object: 'event', type, data: { object } });
          return svc.checkout.handleEvent(
            Buffer.from(payload),
            signer.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK }),
          );
        };
        type ModelPurchase = (typeof model.purchases)[number][number];
        /** A refund (cumulative) or a dispute's withdrawn money taken back: credits, then debt. */
        const reverseModel = (buyer: number, p: ModelPurchase, by: { refunded?: number; disputed?: number }) => {
          p.refunded = Math.max(p.refunded, by.refunded ?? 0);
          p.disputed += by.disputed ?? 0;
          const back = Math.min(p.refunded + p.disputed, p.cents);
          const target = Math.max(p.reversed, Math.ceil((p.unlocks * back) / p.cents));
          const due = target - p.reversed;
          p.reversed = target;
          const took = Math.min(due, model.credits[buyer]!);
          model.credits[buyer]! -= took;
          model.debt[buyer]! += due - took;
          p.owedMade += due - took;
        };
        const restart = async () => {
          await db.close();
          standIn.setTransferMode('normal');
          standIn.release();
          db = await Database.open(file);
          svc = open();
        };
        const openCard = (contributor: number, cents: number) =>
          db.tx(async (q) => {
            const holder = contributors[contributor]!;
            if (await ledgerStore.inFlight(q, holder)) return undefined;
            if ((await balanceOf(q, holder)).pending_micro < cents * 10_000) return undefined;
            const s = await openSettlement(q, {
              holder,
              wallet: null,
              rail: 'processor',
              amountMicro: cents * 10_000,
              destination: `acct_${holder}`,
              pollUrl: '/poll',
              now: clock.now(),
            });
            opened.push(s.id);
            return s;
          });

        try {
          for (const s of steps) {
            clock.advance(1000);
            switch (s.kind) {
              case 'buy': {
                const { session_id } = await svc.checkout.createSession(buyers[s.buyer]!, s.pack);
                const cents = s.pack === 'starter' ? 1000 : 2500;
                // An outstanding debt is paid first out of the pack's money; the credits that money buys are withheld.
                const owed = await creditsStore.debtOf(db, buyers[s.buyer]!);
                const paysDebt = Math.min(Math.max(0, owed.amount_micro), cents * 10_000);
                const pi = `pi_${session_id}`;
                const r = await event('checkout.session.completed', {
                  id: session_id,
                  payment_status: 'paid',
                  amount_total: cents,
                  currency: 'usd',
                  payment_intent: pi,
                });
                expect(r.outcome).toBe('credited');
                const unlocks = s.pack === 'starter' ? 100 : 300;
                model.credits[s.buyer]! += unlocks - Math.ceil((unlocks * paysDebt) / (cents * 10_000));
                if (paysDebt > 0)
                  model.debt[s.buyer]! -=
                    paysDebt === owed.amount_micro
                      ? owed.unlocks
                      : Math.floor((owed.unlocks * paysDebt) / owed.amount_micro);
                model.purchases[s.buyer]!.push({
                  pi,
                  cents,
                  unlocks,
                  reversed: 0,
                  refunded: 0,
                  disputed: 0,
                  owedMade: 0,
                  disputes: [],
                });
                break;
              }
              case 'refund': {
                const p = model.purchases[s.buyer]!.at(-1);
                if (!p) break;
                const cents = Math.ceil((p.cents * s.permille) / 1000);
                const id = `du_${run}_${evt}`;
                const r = await event(
                  s.dispute === 'no' ? 'charge.refunded' : 'charge.dispute.created',
                  s.dispute === 'no'
                    ? { payment_intent: p.pi, amount: p.cents, amount_refunded: cents }
                    : {
                        id,
                        payment_intent: p.pi,
                        amount: cents,
                        status: `${s.dispute === 'inquiry' ? 'warning_' : ''}needs_response`,
                      },
                );
                // Refunds are cumulative; each dispute takes its own amount besides them; an inquiry takes nothing.
                if (s.dispute === 'inquiry') {
                  expect(r.outcome).toBe('inquiry');
                  p.disputes.push({ id, cents, won: false, withdrawn: false });
                  break;
                }
                if (s.dispute === 'chargeback') p.disputes.push({ id, cents, won: false, withdrawn: true });
                reverseModel(s.buyer, p, s.dispute === 'no' ? { refunded: cents } : { disputed: cents });
                break;
              }
              case 'win': {
                // One of the buyer's disputes won: its funds reinstated (some twice).
                const all = model.purchases[s.buyer]!.flatMap((p) => p.disputes.map((d) => ({ p, d })));
                const pick = all[s.which % Math.max(all.length, 1)];
                if (!pick) break;
                const { p, d } = pick;
                if (!d.withdrawn) {
                  // The inquiry escalated: its funds withdrawn now.
                  const w = await event('charge.dispute.funds_withdrawn', {
                    id: d.id,
                    payment_intent: p.pi,
                    amount: d.cents,
                    status: 'needs_response',
                  });
                  expect(w.outcome).toBe('reversed');
                  d.withdrawn = true;
                  reverseModel(s.buyer, p, { disputed: d.cents });
                  break;
                }
                const r = await event('charge.dispute.funds_reinstated', {
                  id: d.id,
                  payment_intent: p.pi,
                  amount: d.cents,
                  status: 'won',
                });
                expect(r.outcome).toBe(d.won ? 'already_reinstated' : 'reinstated');
                if (d.won) break;
                d.won = true;
                p.disputed -= d.cents;
                // What stays reversed keeps its share; the rest cancels this purchase's debt still owed, then is
                // credited.
                const back = Math.min(p.refunded + p.disputed, p.cents);
                const target = Math.ceil((p.unlocks * back) / p.cents);
                const freed = Math.max(0, p.reversed - target);
                p.reversed -= freed;
                const cancelled = Math.max(0, Math.min(freed, p.owedMade, model.debt[s.buyer]!));
                p.owedMade -= cancelled;
                model.debt[s.buyer]! -= cancelled;
                model.credits[s.buyer]! += freed - cancelled;
                break;
              }
              case 'pay': {
                const buyer = buyers[s.buyer]!;
                for (let i = 0; i < (s.byCredit ? s.times : 1); i++)
                  await db.tx(async (q) => {
                    // A credit pays the price up to the money behind it, as GET /knowledge/{id} books it.
                    const credit = s.byCredit ? await creditsStore.takeUnlock(q, buyer, clock.now()) : undefined;
                    if (s.byCredit && credit === undefined) return;
                    if (s.byCredit) model.credits[s.buyer]! -= 1;
                    const paidMicro = credit === undefined ? s.priceMicro : Math.min(s.priceMicro, credit);
                    // An x402 payment is claimed verified; its share waits for the settlement (credit: false).
                    const claim = {
                      chainId: 8453,
                      payer: `0xpayer${s.buyer}`,
                      nonce: `0x${randomBytes(32).toString('hex')}`,
                    };
                    if (!s.byCredit)
                      await paymentClaimsStore.claim(q, {
                        ...claim,
                        learningId: `lrn_m${s.contributor}`,
                        payload: '{}',
                        now: clock.now(),
                      });
                    const { id } = await recordUnlock(q, {
                      learningId: `lrn_m${s.contributor}`,
                      buyer: s.byCredit ? buyer : `0xpayer${s.buyer}`,
                      path: s.byCredit ? 'key' : 'x402',
                      paidMicro,
                      discovery: false,
                      selfDealing: false,
                      accrualCapped: false,
                      payee: { holder: contributors[s.contributor]!, held: false },
                      credit: s.byCredit,
                      now: clock.now(),
                    });
                    if (!s.byCredit) {
                      await paymentClaimsStore.attachUnlock(q, claim, id);
                      open402.push({
                        claim,
                        unlockId: id,
                        contributor: s.contributor,
                        share: Math.floor((s.priceMicro * 70) / 100),
                      });
                    } else model.owned[s.contributor]! += Math.floor((paidMicro * 70) / 100);
                  });
                break;
              }
              case 'settle': {
                // The chain answers for one open payment: settled (its share becomes earnings) or failed (never).
                const p = open402.splice(s.which % Math.max(open402.length, 1), 1)[0];
                if (!p) break;
                await db.tx(async (q) => {
                  const txHash = `0x${randomBytes(32).toString('hex')}`;
                  if (!s.ok)
                    return paymentClaimsStore.setState(q, p.claim, {
                      state: 'failed',
                      reason: 'reverted',
                      now: clock.now(),
                    });
                  await paymentClaimsStore.setState(q, p.claim, { state: 'settled', txHash, now: clock.now() });
                  await creditSettled(q, p.unlockId, txHash, clock.now());
                });
                if (s.ok) model.owned[p.contributor]! += p.share;
                break;
              }
              case 'withdraw': {
                const settlement = await openCard(s.contributor, s.cents);
                if (!settlement) break;
                standIn.setTransferMode(s.processor);
                const after = await svc.payouts.send(settlement);
                standIn.setTransferMode('normal');
                // An answer slower than the timeout is an unknown outcome, never a failure.
                const expected = {
                  normal: ['confirmed', 'processing_timeout'],
                  slow: ['processing_timeout'],
                  refuse: ['failed'],
                };
                expect(expected[s.processor]).toContain(after.status);
                break;
              }
              case 'crash': {
                // Killed after opening the settlement: before sending it, or after the processor took it.
                const settlement = await openCard(s.contributor, s.cents);
                if (!settlement) break;
                if (s.sent)
                  await processor.transfer({
                    destination: settlement.destination!,
                    amountCents: s.cents,
                    settlementId: settlement.id,
                  });
                await restart();
                break;
              }
              case 'restart':
                await restart();
                break;
              case 'reconcile': {
                standIn.setTransferMode('normal');
                standIn.release();
                const pass = await svc.payouts.runPass();
                expect(pass?.unresolved).toBe(0);
                // Everything resolved: the processor's transfers are exactly the confirmed card payouts.
                const report = await ledgerReport(
                  db,
                  mine().map((t) => ({
                    id: t.id,
                    amountCents: t.amount,
                    destination: t.destination,
                    settlementId: t.transfer_group,
                    reversed: t.reversed,
                    amountReversedCents: t.amount_reversed,
                  })),
                );
                expect(report.problems).toEqual([]);
                break;
              }
            }
            // After every step: the books balance, no settlement was paid twice, credits and debt are the model's.
            const report = await ledgerReport(db);
            expect(report.problems).toEqual([]);
            const perSettlement = new Map<string, number>();
            for (const t of mine())
              perSettlement.set(t.transfer_group!, (perSettlement.get(t.transfer_group!) ?? 0) + 1);
            expect([...perSettlement.values()].every((n) => n === 1)).toBe(true);
            for (const [i, b] of buyers.entries()) {
              expect((await creditsStore.balance(db, b)).unlocks).toBe(model.credits[i]);
              expect((await creditsStore.debtOf(db, b)).unlocks).toBe(model.debt[i]);
            }
            for (const [i, c] of contributors.entries()) {
              const bal = await balanceOf(db, c);
              expect(bal.pending_micro + bal.withdrawn_micro).toBe(bal.owned_micro);
              // Only settled payments and paid credits ever became earnings.
              expect(bal.owned_micro).toBe(model.owned[i]);
            }
          }
        } finally {
          await db.close();
          standIn.setTransferMode('normal');
          standIn.release();
        }
      }),
      { numRuns: RUNS },
    );
  }, 120_000);
});
