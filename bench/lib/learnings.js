// Loads learnings straight into a store (no HTTP, no screens, no rate limits) for the knowledge eval and
// bench: each row as POST /learn stores an approved learning (seq, content hash, LSH band keys, full-text row).
import { sha256Hex } from '../../packages/server/dist/domain/ids.js';
import { basePriceMicros } from '../../packages/server/dist/domain/pricing.js';
import { contentHash, lshBandKeys, minhashSignature, shingles } from '../../packages/server/dist/domain/similarity.js';
import { complexityOf } from '../../packages/server/dist/services/learning-view.js';
import { similarityText } from '../../packages/server/dist/services/learn.js';
import { EMBEDDING_MODEL } from '../../packages/server/dist/search/embedding-text.js';
import { learningsStore } from '../../packages/server/dist/store/learnings.js';

const BATCH = 500;

/**
 * A learnings row as an approved, public, direct submission at `now`; `fields` gives the content, the
 * prices and complexity, and overrides any default.
 */
export function approvedRow(fields, now) {
  return {
    status: 'approved',
    reviewReason: null,
    relatedSkills: [],
    contributorAccountId: null,
    contributorWallet: null,
    contributorKeyLabel: null,
    contributorAgent: 'bench',
    submissionChannel: 'direct',
    sourceClient: null,
    visibility: 'public',
    overridePriceMicro: null,
    lastRepricedAt: now,
    qualityScore: null,
    qualityDimensions: null,
    injectionFlags: null,
    possibleDuplicateOf: null,
    possibleDuplicateSimilarity: null,
    publishedAt: now,
    createdAt: now,
    updatedAt: now,
    seq: null,
    contentHash: null,
    sensitivityFindings: null,
    replacesId: null,
    ...fields,
  };
}

/** Inserts `rows` ({id, title, body, category, tags, task_context, outcome}) as approved learnings at time `now`. */
export async function insertApproved(db, rows, now = Date.now()) {
  for (let i = 0; i < rows.length; i += BATCH) {
    await db.tx(async (q) => {
      let seq = await learningsStore.nextSeq(q);
      for (const r of rows.slice(i, i + BATCH)) {
        const complexity = complexityOf(r.body);
        const base = basePriceMicros(complexity);
        await learningsStore.insert(
          q,
          approvedRow(
            {
              id: r.id,
              category: r.category,
              title: r.title,
              body: r.body,
              bodyHash: sha256Hex(r.body),
              tags: r.tags,
              taskContext: r.task_context,
              outcome: r.outcome,
              contributorAccountId: r.account ?? null,
              basePriceMicro: base,
              currentPriceMicro: base,
              complexity,
              seq: seq++,
              contentHash: contentHash(r.title, r.body),
            },
            now,
          ),
        );
        await learningsStore.addBandKeys(
          q,
          r.id,
          lshBandKeys(minhashSignature(shingles(similarityText(r.title, r.body)))),
        );
      }
    });
  }
}

/**
 * Waits until the server on `store`'s database has computed every visible learning's vector, so that a measured
 * phase does not share the model with that background work. False if `timeoutMs` passed first.
 */
export async function waitLearningVectors(store, timeoutMs) {
  const until = performance.now() + timeoutMs;
  while ((await learningsStore.missingEmbeddings(store.db, EMBEDDING_MODEL, 1)).length > 0) {
    if (performance.now() > until) return false;
    await new Promise((r) => setTimeout(r, 500));
  }
  return true;
}
