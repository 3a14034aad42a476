import { CONTENT_ADVISORY, type LearningFull, microToUsd } from '@axle/sdk';
import type { LearningRecord } from '../store/learnings.js';
import { toSnippet } from './learning-view.js';

const iso = (ms: number) => new Date(ms).toISOString();

export interface Demand {
  search_impressions_7d: number;
  search_impressions_30d: number;
  unlocks_7d: number;
  unlocks_30d: number;
}

/** The price a buyer pays now: the contributor's override, else the dynamic price. */
export const unlockPriceMicro = (l: LearningRecord): number => l.overridePriceMicro ?? l.currentPriceMicro;

/** LearningFull for an unlock: every snippet field, the body, economics, provenance and this unlock's `_revenue`. */
export function learningFull(
  l: LearningRecord,
  extra: { demand: Demand; helpfulnessScores: number[]; revenue: LearningFull['_revenue']; now: number },
): LearningFull {
  const priceMicro = unlockPriceMicro(l);
  const { relevance: _, ...snippet } = toSnippet(l, l.currentPriceMicro, 0, extra.now);
  return {
    ...snippet,
    quality: { ...snippet.quality, helpfulness_scores: extra.helpfulnessScores },
    body: l.body,
    body_hash: l.bodyHash,
    content_advisory: CONTENT_ADVISORY,
    contributor_wallet: l.contributorWallet,
    contributor_key_label: l.contributorKeyLabel,
    contributor_agent: l.contributorAgent,
    related_skills: l.relatedSkills,
    submission_channel: l.submissionChannel,
    visibility: l.visibility,
    unlock_price: microToUsd(priceMicro),
    pricing: {
      base_price: microToUsd(l.basePriceMicro),
      current_price: microToUsd(l.currentPriceMicro),
      builder_override_price: l.overridePriceMicro === null ? null : microToUsd(l.overridePriceMicro),
      complexity: l.complexity,
      last_repriced_at: iso(l.lastRepricedAt),
    },
    demand: extra.demand,
    status: l.status,
    earnings: {
      gross_usd: microToUsd(l.grossMicro),
      contributor_share_usd: microToUsd(l.contributorMicro),
      platform_share_usd: microToUsd(l.platformMicro),
    },
    created_at: iso(l.createdAt),
    updated_at: iso(l.updatedAt),
    timestamp: iso(extra.now),
    _revenue: extra.revenue,
  };
}
