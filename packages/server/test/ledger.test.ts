import path from 'node:path';
import { CURRENT_TOS_VERSION } from '@axle/sdk';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainError } from '../src/domain/errors.js';
import { checkLedger } from '../src/services/ledger-check.js';
import { ledgerCheck } from '../src/scripts/ledger-check.js';
import {
  balanceOf,
  migrateWalletBalance,
  openSettlement,
  payeeOf,
  recordUnlock,
  releaseHeld,
  resolveSettlement,
} from '../src/services/ledger.js';
import { accountsStore } from '../src/store/accounts.js';
import type { Queryable, Transactor } from '../src/store/queryable.js';
import { ledgerStore } from '../src/store/ledger.js';
import { learningsStore } from '../src/store/learnings.js';
import { termsStore } from '../src/store/terms.js';
import { walletsStore } from '../src/store/wallets.js';
import { newLearning } from './learning-fixture.js';
import { boughtCredits } from './money-helpers.js';
import { openTestStore } from '../../../test/support/backend.js';

let store: Awaited<ReturnType<typeof openTestStore>>;
let db: Transactor;
let now = Date.UTC(2026, 0, 1);
const W1 = '0x00000000000000000000000000000000000000a1';
const W2 = '0x00000000000000000000000000000000000000b2';

async function accept(q: Queryable, accountId: string) {
  const first = !(await termsStore.hasAny(q, accountId));
  if (await termsStore.find(q, accountId, CURRENT_TOS_VERSION)) return;
  await termsStore.insert(q, {
    account_id: accountId,
    version: CURRENT_TOS_VERSION,
    accepted_at: now,
    via: 'jwt',
    audit_ref: 'aud_test',
  });
  if (first) await releaseHeld(q, accountId, now);
}

const accounts = ['acc_a', 'acc_b', 'acc_c'];
const learnings = [
  newLearning({ id: 'lrn_a', contributorAccountId: 'acc_a', contributorWallet: null }),
  newLearning({ id: 'lrn_b', contributorAccountId: 'acc_b', contributorWallet: null }),
  newLearning({ id: 'lrn_w1', contributorAccountId: null, contributorWallet: W1 }),
  newLearning({ id: 'lrn_w2', contributorAccountId: null, contributorWallet: W2 }),
];

beforeAll(async () => {
  store = await openTestStore();
  db = store.db;
  for (const id of accounts) await accountsStore.insertOrGet(db, { id, email: `${id}@example.com`, created_at: now });
  for (const l of learnings) await learningsStore.insert(db, l);
  await accept(db, 'acc_a');
  // The buyers whose credit unlocks this file books, with the money behind those credits.
  for (const id of ['acc_buyer', 'acc_x']) await boughtCredits(db, id, 1_000_000_000_000);
});
afterAll(() => store.close());

type Op =
  | { kind: 'unlock'; learning: number; paid: number; discovery: boolean; selfDealing: boolean; capped: boolean }
  | { kind: 'accept'; account: number }
  | { kind: 'link' }
  | { kind: 'withdraw'; account: number; permille: number }
  | { kind: 'resolve'; account: number; outcome: 'confirmed' | 'processing_timeout' | 'failed' };

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('unlock' as const),
      learning: fc.nat(3),
      paid: fc.integer({ min: 0, max: 5_000_000 }),
      discovery: fc.boolean(),
      selfDealing: fc.boolean(),
      capped: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('accept' as const), account: fc.nat(2) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('link' as const) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('withdraw' as const),
      account: fc.nat(2),
      permille: fc.integer({ min: 1, max: 1200 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('resolve' as const),
      account: fc.nat(2),
      outcome: fc.constantFrom('confirmed' as const, 'processing_timeout' as const, 'failed' as const),
    }),
  },
);

async function apply(o: Op): Promise<void> {
  now += 1000;
  await db.tx(async (q) => {
    switch (o.kind) {
      case 'unlock': {
        const l = learnings[o.learning]!;
        const payee = await payeeOf(q, l);
        const paid = o.capped ? 0 : o.paid;
        await recordUnlock(q, {
          learningId: l.id,
          buyer: 'acc_buyer',
          path: 'key',
          paidMicro: paid,
          discovery: o.discovery,
          selfDealing: o.selfDealing,
          accrualCapped: o.capped,
          payee,
          now,
        });
        return;
      }
      case 'accept':
        return accept(q, accounts[o.account]!);
      case 'link':
        if (await walletsStore.link(q, 'acc_c', W1)) await migrateWalletBalance(q, W1, 'acc_c', now);
        return;
      case 'withdraw': {
        const holder = accounts[o.account]!;
        const { pending_micro } = await balanceOf(q, holder);
        const amountMicro = Math.floor((pending_micro * o.permille) / 1000);
        try {
          await openSettlement(q, { holder, wallet: null, rail: 'wallet', amountMicro, pollUrl: '/poll', now });
        } catch (err) {
          if (!(err instanceof DomainError)) throw err;
        }
        return;
      }
      case 'resolve': {
        const s = await ledgerStore.inFlight(q, accounts[o.account]!);
        if (s) await resolveSettlement(q, s, { status: o.outcome }, now);
        return;
      }
    }
  });
}

describe('ledger', () => {
  it('keeps every sum exact over random unlocks, acceptances, links, withdrawals and payouts', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 40 }), async (ops) => {
        for (const o of ops) await apply(o);
        expect(await checkLedger(db)).toEqual([]);
        const sold = await db.get<{ s: number }>('SELECT COALESCE(SUM(contributor_micro), 0) AS s FROM unlocks');
        const held = await db.get<{ s: number }>(
          'SELECT COALESCE(SUM(owned_micro + held_micro), 0) AS s FROM earnings_balances',
        );
        expect(held!.s).toBe(sold!.s);
        for (const b of await db.all<{ owned_micro: number; pending_micro: number; withdrawn_micro: number }>(
          'SELECT * FROM earnings_balances',
        )) {
          expect(b.pending_micro + b.withdrawn_micro).toBe(b.owned_micro);
        }
      }),
      { numRuns: 40 },
    );
  });

  it('holds earnings of accounts without accepted terms and of unlinked wallets, and converts them', async () => {
    await db.tx(async (q) => {
      for (const l of learnings)
        await recordUnlock(q, {
          learningId: l.id,
          buyer: 'acc_x',
          path: 'key',
          paidMicro: 100_000,
          discovery: false,
          selfDealing: false,
          accrualCapped: false,
          payee: await payeeOf(q, l),
          now,
        });
    });
    const before = await balanceOf(db, W2.toLowerCase());
    expect(before.held_micro).toBeGreaterThanOrEqual(70_000);
    const b = await balanceOf(db, 'acc_b');
    if (!(await termsStore.hasAny(db, 'acc_b'))) {
      expect(b.held_micro).toBeGreaterThanOrEqual(70_000);
      await db.tx((q) => accept(q, 'acc_b'));
      const after = await balanceOf(db, 'acc_b');
      expect(after.held_micro).toBe(0);
      expect(after.owned_micro).toBe(b.owned_micro + b.held_micro);
    }
    expect(await checkLedger(db)).toEqual([]);
  });

  it('npm run ledger:check passes on a consistent data dir and reports a tampered balance', async () => {
    const lines: string[] = [];
    expect(await ledgerCheck(store.env, (l) => lines.push(l))).toBe(0);
    expect(JSON.parse(lines[0]!)).toMatchObject({ ok: true, problems: [] });
    await db.run("UPDATE earnings_balances SET owned_micro = owned_micro + 1 WHERE holder = 'acc_a'");
    expect(await ledgerCheck(store.env, (l) => lines.push(l))).toBe(1);
    expect(JSON.parse(lines[1]!).problems[0]).toMatch(/balance differs from its journal/);
    await db.run("UPDATE earnings_balances SET owned_micro = owned_micro - 1 WHERE holder = 'acc_a'");
    expect(await ledgerCheck({ AXLE_DATA_DIR: path.join(store.env.AXLE_DATA_DIR!, 'none') }, () => {})).toBe(2);
  });
});
