import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../src/clock.js';
import { createKnowledgeService } from '../src/services/knowledge.js';
import { createAccountWriteLimiter } from '../src/services/account-write-limits.js';
import { createRateLimiter } from '../src/services/rate-limit.js';
import { Database } from '../src/store/db.js';
import { learningsStore } from '../src/store/learnings.js';
import { migrate } from '../src/store/migrate.js';
import { newLearning } from './learning-fixture.js';

let dir: string;
let db: Database;
const clock = new ManualClock();
const ROWS = 1200;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'axle-klex-'));
  db = await Database.open(path.join(dir, 'axle.db'));
  await migrate(db);
  await db.tx(async (q) => {
    for (let i = 0; i < ROWS; i++) {
      // Every row holds "cache" and "eviction"; "warmup" every other row; "zeppelin" only in three.
      const rare = i % 400 === 0 ? ' zeppelin' : '';
      const body = `cache eviction notes ${i % 2 === 0 ? 'warmup' : 'steady'} row ${i}${rare} with enough words to pass the minimum length`;
      const l = newLearning({ id: `lrn_k${i}`, title: `Cache note ${i}`, body, seq: i + 1 }, clock.now());
      await learningsStore.insert(q, l);
      await learningsStore.index(q, l.id);
    }
  });
});
afterAll(async () => {
  await db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('knowledge lexical ranking over a catalog of common words', () => {
  it('a rare term selects the rows; with only common terms, rows must hold the two least common', async () => {
    const knowledge = createKnowledgeService({
      db,
      clock,
      writeLimits: createAccountWriteLimiter(createRateLimiter({ db, clock })),
    });
    expect((await knowledge.rank('cache eviction zeppelin', {}, 50, 'lexical')).sort()).toEqual([
      'lrn_k0',
      'lrn_k400',
      'lrn_k800',
    ]);
    const common = await knowledge.rank('cache eviction warmup', {}, 1000, 'lexical');
    expect(common.length).toBe(50);
    expect(common.every((id) => Number(id.slice(5)) % 2 === 0)).toBe(true);
  });
});

describe('repricing', () => {
  it('stores the one current price, keeps the one before, and says whether it changed', async () => {
    const before = (await learningsStore.byId(db, 'lrn_k1'))!;
    const now = before.lastRepricedAt + 1000;
    expect(await db.tx((q) => learningsStore.reprice(q, 'lrn_k1', 90_000, now))).toBe(true);
    expect(await db.tx((q) => learningsStore.reprice(q, 'lrn_k1', 90_000, now + 1000))).toBe(false);
    expect(await learningsStore.byId(db, 'lrn_k1')).toMatchObject({
      currentPriceMicro: 90_000,
      priorPriceMicro: before.currentPriceMicro,
      lastRepricedAt: now,
    });
  });
});
