import { createHash, randomBytes } from 'node:crypto';
import type { NewLearning } from '../src/store/learnings.js';

/** A complete learnings row for tests; `over` sets what the test is about. */
export function newLearning(over: Partial<NewLearning> = {}, now = Date.UTC(2026, 0, 1)): NewLearning {
  const body =
    over.body ?? `Back off per part on S3 503 SlowDown and resume from ListParts; ${randomBytes(6).toString('hex')}.`;
  return {
    id: `lrn_${randomBytes(8).toString('hex')}`,
    status: 'approved',
    reviewReason: null,
    category: 'storage-state',
    title: 'Retry S3 multipart uploads on SlowDown',
    body,
    bodyHash: createHash('sha256').update(body).digest('hex'),
    tags: ['s3', 'retry'],
    taskContext: 'nightly backups',
    outcome: 'success',
    relatedSkills: [],
    contributorAccountId: null,
    contributorWallet: '0x000000000000000000000000000000000000beef',
    contributorKeyLabel: null,
    contributorAgent: 'test-agent/1.0',
    submissionChannel: 'direct',
    sourceClient: null,
    visibility: 'public',
    basePriceMicro: 80_000,
    currentPriceMicro: 80_000,
    overridePriceMicro: null,
    complexity: 'medium',
    lastRepricedAt: now,
    qualityScore: 16,
    qualityDimensions: { specificity: 4, actionability: 4, novelty: 4, completeness: 4 },
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
    ...over,
  };
}
