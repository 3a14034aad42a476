import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../src/clock.js';
import { createLogger } from '../src/logger.js';
import { EmbedderClient } from '../src/search/embedder.js';
import { LearningVectors } from '../src/search/learning-vectors.js';
import { createKnowledgeService } from '../src/services/knowledge.js';
import { createLearningsSearch } from '../src/store/learnings-search.js';
import { createLearnService } from '../src/services/learn.js';
import { createAccountWriteLimiter } from '../src/services/account-write-limits.js';
import { createRateLimiter } from '../src/services/rate-limit.js';
import { Database } from '../src/store/db.js';
import { learningsStore } from '../src/store/learnings.js';
import { migrate } from '../src/store/migrate.js';
import { learningBody } from './knowledge-helpers.js';

let dir: string;
let db: Database;
let client: EmbedderClient;
const clock = new ManualClock();

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'axle-vectors-'));
  db = await Database.open(path.join(dir, 'axle.db'));
  await migrate(db);
  client = new EmbedderClient();
  await client.init();
}, 60_000);
afterAll(async () => {
  await client.close();
  await db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('learning vectors (the real sentence model)', () => {
  it('computes vectors for visible learnings, finds a paraphrase with no shared word, and picks up later rows', async () => {
    const model = {
      state: () => 'ready',
      embed: (texts: string[]) => client.embed(texts),
      queryVector: (q: string) => client.queryVector(q),
    };
    const vectors = new LearningVectors(db, model, createLogger('warn'), clock);
    const writeLimits = createAccountWriteLimiter(createRateLimiter({ db, clock }));
    const learn = createLearnService({ db, clock, writeLimits, forcedReview: false });
    const learningsSearch = createLearningsSearch(db, () => clock.now());
    const knowledge = createKnowledgeService({ db, learningsSearch, clock, writeLimits, vectors });
    // One published learning lifts the first-publication review for the rest.
    await db.run("INSERT INTO accounts (id, email, created_at) VALUES ('acc_v', 'v@example.com', 0)");
    const submit = async (n: number, over = {}) =>
      (
        await learn.submit({ accountId: 'acc_v' }, {
          ...learningBody(n),
          submission_channel: 'direct',
          ...over,
        } as never)
      ).id;
    const first = await submit(0);
    await db.tx((q) =>
      learningsStore.byId(q, first).then((l) => learningsStore.setStatus(q, l!, 'approved', null, clock.now())),
    );
    const stripe = await submit(4);
    await vectors.fill();
    expect((await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM learning_embeddings'))!.n).toBe(2);

    const hits = await vectors.search('payment provider callback verification rejected', 5, 0, null);
    expect(hits[0]!.id).toBe(stripe);
    expect(await knowledge.rank('payment provider callback verification rejected', {}, 5, 'semantic')).toEqual([
      stripe,
      first,
    ]);

    // A row stored after the index was built is searched too (and a filter narrows both parts).
    const kafka = await submit(2);
    await vectors.fill();
    await vectors.sync(true);
    expect(vectors.size).toBe(3);
    const later = await vectors.search('message queue readers rebalancing repeatedly', 3, 0, null);
    expect(later[0]!.id).toBe(kafka);
    expect(
      (await vectors.search('message queue readers rebalancing repeatedly', 3, 0, new Set([first]))).map((h) => h.id),
    ).toEqual([first]);
    await vectors.close();
  }, 60_000);

  it("in a blend, reads the lexical hits' ranking fields while the query is still being embedded", async () => {
    const writeLimits = createAccountWriteLimiter(createRateLimiter({ db, clock }));
    const learningsSearch = createLearningsSearch(db, () => clock.now());
    const service = (queryVector: (q: string) => Promise<Float32Array>) => {
      const vectors = new LearningVectors(
        db,
        { state: () => 'ready', embed: (t) => client.embed(t), queryVector },
        createLogger('warn'),
        clock,
      );
      return createKnowledgeService({ db, learningsSearch, clock, writeLimits, vectors });
    };
    const query = 'kafka consumer rebalance storms';
    const expected = await service((q) => client.queryVector(q)).rank(query, {}, 10, 'blend');
    expect(expected.length).toBeGreaterThan(1);

    // The query's vector is held back until ranking fields were read: those of the lexical hits must not wait for it
    // (before, one read of every candidate's fields followed both sides, and this search never finished).
    const read = learningsStore.rankingFieldsByIds;
    const reads: string[][] = [];
    let fieldsRead!: () => void;
    const readBegun = new Promise<void>((resolve) => (fieldsRead = resolve));
    const spy = vi.spyOn(learningsStore, 'rankingFieldsByIds').mockImplementation((q, ids) => {
      reads.push([...ids]);
      fieldsRead();
      return read(q, ids);
    });
    try {
      const held = service(async (q) => {
        await readBegun;
        return client.queryVector(q);
      });
      expect(await held.rank(query, {}, 10, 'blend')).toEqual(expected);
    } finally {
      spy.mockRestore();
    }
    const lexical = await learningsSearch.lexical(query, {}, 50);
    expect(reads[0]).toEqual(lexical.map((h) => h.id));
    // Then only the semantic side's other hits.
    expect(reads).toHaveLength(2);
    expect(reads[1]!.filter((id) => reads[0]!.includes(id))).toEqual([]);
  }, 20_000);
});
