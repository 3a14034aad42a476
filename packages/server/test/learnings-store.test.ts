import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Database, type Queryable } from '../src/store/db.js';
import { ledgerStore } from '../src/store/ledger.js';
import { learningsStore } from '../src/store/learnings.js';
import { migrate } from '../src/store/migrate.js';
import { createLogger } from '../src/logger.js';
import { createSearchCounts } from '../src/services/search-counts.js';
import { queryCountersStore } from '../src/store/query-counters.js';
import { newLearning } from './learning-fixture.js';

let dir: string;
let db: Database;
beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'axle-learnings-'));
  db = await Database.open(path.join(dir, 'axle.db'));
  await migrate(db);
});
afterEach(async () => {
  await db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('learnings store', () => {
  it('round-trips a held learning with its JSON columns, and counters start at zero', async () => {
    const held = newLearning({
      status: 'pending_review',
      reviewReason: ['near_duplicate', 'injection'],
      injectionFlags: ['ignore previous instructions'],
      possibleDuplicateOf: 'lrn_other',
      possibleDuplicateSimilarity: 0.72,
      outcome: null,
      publishedAt: null,
    });
    await learningsStore.insert(db, held);
    expect(await learningsStore.byId(db, held.id)).toEqual({
      ...held,
      unlockCount: 0,
      ratingCount: 0,
      avgHelpfulness: 0,
      grossMicro: 0,
      contributorMicro: 0,
      platformMicro: 0,
      priorPriceMicro: null,
      screeningNote: null,
    });
    expect(await learningsStore.byId(db, 'lrn_missing')).toBeUndefined();
  });

  it('counts only approved learnings, by category', async () => {
    await db.tx(async (q) => {
      for (const l of [
        newLearning({ category: 'monitoring' }),
        newLearning({ category: 'monitoring' }),
        newLearning({ category: 'data-processing' }),
        newLearning({ category: 'data-processing', status: 'retracted' }),
        newLearning({ category: 'web-interaction', status: 'rejected' }),
      ]) {
        await learningsStore.insert(q, l);
      }
    });
    expect(await learningsStore.countVisible(db)).toBe(3);
    expect(await learningsStore.countByCategory(db)).toEqual({ 'data-processing': 1, monitoring: 2 });
  });

  it('refuses an unknown status or channel and a duplicate id', async () => {
    await expect(learningsStore.insert(db, newLearning({ status: 'published' as never }))).rejects.toThrow(/CHECK/);
    await expect(learningsStore.insert(db, newLearning({ submissionChannel: 'email' as never }))).rejects.toThrow(
      /CHECK/,
    );
    const l = newLearning();
    await learningsStore.insert(db, l);
    await expect(learningsStore.insert(db, newLearning({ id: l.id }))).rejects.toThrow(/UNIQUE/);
  });
});

describe('query counters', () => {
  it('lose no increment under concurrency', async () => {
    await Promise.all(
      Array.from({ length: 40 }, (_, i) => queryCountersStore.increment(db, i % 4 === 0 ? 'knowledge' : 'discover')),
    );
    expect(await queryCountersStore.all(db)).toEqual({ discover: 30, knowledge: 10 });
  });
});

describe('SearchCounts', () => {
  it('adds counts held in memory to the stored ones, saves them in one go, and keeps them when saving fails', async () => {
    const counts = createSearchCounts({ db, logger: createLogger('silent') });
    await queryCountersStore.increment(db, 'discover', 5);
    for (let i = 0; i < 3; i++) counts.add('discover');
    counts.add('knowledge');
    expect(await counts.all()).toEqual({ discover: 8, knowledge: 1 });
    expect(await queryCountersStore.all(db)).toEqual({ discover: 5 });

    await db.exec('ALTER TABLE query_counters RENAME TO query_counters_away');
    await expect(counts.flush()).rejects.toThrow(/no such table/);
    await db.exec('ALTER TABLE query_counters_away RENAME TO query_counters');
    counts.add('knowledge');
    await counts.close();
    expect(await queryCountersStore.all(db)).toEqual({ discover: 8, knowledge: 2 });
    expect(await counts.all()).toEqual({ discover: 8, knowledge: 2 });
  });

  it('never misses a batch that is being saved while /stats reads', async () => {
    const counts = createSearchCounts({ db, logger: createLogger('silent') });
    for (let round = 1; round <= 5; round++) {
      counts.add('discover');
      counts.add('discover');
      const [, seen] = await Promise.all([counts.flush(), counts.all()]);
      expect(seen).toEqual({ discover: 2 * round });
    }
    await counts.close();
  });
});

describe('query plans of public reads', () => {
  /** A Queryable that answers each read with its query plan's lines instead of its rows. */
  const planOf = (plans: string[]): Queryable => ({
    run: (sql, params) => db.run(sql, params),
    exec: (sql) => db.exec(sql),
    async get(sql, params) {
      plans.push(...(await db.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`, params)).map((r) => r.detail));
      return undefined;
    },
    async all(sql, params) {
      plans.push(...(await db.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`, params)).map((r) => r.detail));
      return [];
    },
  });

  it("GET /contributor/{wallet} finds the wallet's learnings through an index, not a scan of every learning", async () => {
    const plans: string[] = [];
    const wallet = '0x00000000000000000000000000000000000000AB';
    await learningsStore.countVisibleByWallet(planOf(plans), wallet);
    await ledgerStore.walletLearnings(planOf(plans), wallet, 500);
    expect(plans.filter((p) => /learnings_wallet_lower/.test(p))).toHaveLength(2);
    expect(plans.filter((p) => /^SCAN (l|learnings)\b/.test(p))).toEqual([]);
  });

  it("GET /contributor/{wallet}/settlements finds the holder's withdrawals through an index, newest first, not a scan of every one", async () => {
    // Found by review: no index led with holder, so each anonymous request read (and sorted) every account's withdrawals.
    const plans: string[] = [];
    await ledgerStore.settlementsFor(planOf(plans), 'acc_someone', 500);
    expect(plans.filter((p) => /USING INDEX settlements_holder\b/.test(p))).toHaveLength(1);
    expect(plans.filter((p) => /^SCAN settlements\b|TEMP B-TREE/.test(p))).toEqual([]);
  });
});
