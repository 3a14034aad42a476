// Loads learnings straight into a store (no HTTP, no screens, no rate limits) for the knowledge eval and
// bench: each row as POST /learn stores an approved learning (seq, content hash, LSH band keys, full-text row).
import { sha256Hex } from '../../packages/server/dist/domain/ids.js';
import { basePriceMicros } from '../../packages/server/dist/domain/pricing.js';
import { contentHash, lshBandKeys, minhashSignature, shingles } from '../../packages/server/dist/domain/similarity.js';
import { complexityOf } from '../../packages/server/dist/services/learning-view.js';
import { similarityText } from '../../packages/server/dist/services/learn.js';
import { learningsStore } from '../../packages/server/dist/store/learnings.js';

const BATCH = 500;

/** Inserts `rows` ({id, title, body, category, tags, task_context, outcome}) as approved learnings at time `now`. */
export async function insertApproved(db, rows, now = Date.now()) {
  for (let i = 0; i < rows.length; i += BATCH) {
    await db.tx(async (q) => {
      let seq = await learningsStore.nextSeq(q);
      for (const r of rows.slice(i, i + BATCH)) {
        const complexity = complexityOf(r.body);
        const base = basePriceMicros(complexity);
        await learningsStore.insert(q, {
          id: r.id,
          status: 'approved',
          reviewReason: null,
          category: r.category,
          title: r.title,
          body: r.body,
          bodyHash: sha256Hex(r.body),
          tags: r.tags,
          taskContext: r.task_context,
          outcome: r.outcome,
          relatedSkills: [],
          contributorAccountId: r.account ?? null,
          contributorWallet: null,
          contributorKeyLabel: null,
          contributorAgent: 'bench',
          submissionChannel: 'direct',
          sourceClient: null,
          visibility: 'public',
          unlockPriceMicro: 50_000,
          basePriceMicro: base,
          currentPriceMicro: base,
          overridePriceMicro: null,
          complexity,
          lastRepricedAt: now,
          qualityScore: null,
          qualityDimensions: null,
          injectionFlags: null,
          possibleDuplicateOf: null,
          possibleDuplicateSimilarity: null,
          publishedAt: now,
          createdAt: now,
          updatedAt: now,
          seq: seq++,
          contentHash: contentHash(r.title, r.body),
          sensitivityFindings: null,
          replacesId: null,
        });
        await learningsStore.addBandKeys(q, r.id, lshBandKeys(minhashSignature(shingles(similarityText(r.title, r.body)))));
        await learningsStore.index(q, r.id);
      }
    });
  }
}
