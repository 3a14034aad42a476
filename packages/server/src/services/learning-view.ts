import {
  CONTENT_ADVISORY,
  CONTENT_TRUST,
  type InjectionFlag,
  type LearningFull,
  type LearningSnippet,
  LIMITS,
  microToUsd,
  type PendingItem,
  usdToMicro,
  type REVIEW_REASONS,
  untrustedContent,
} from '@axle/sdk';

type ReviewReason = (typeof REVIEW_REASONS)[number];
import { SEMANTIC_FINDING } from '../domain/screens/index.js';
import { type Complexity, basePriceMicros, dynamicPriceMicros } from '../domain/pricing.js';
import { lane, rankingQuality, rubricTotal, rubricTotal01, type QualitySelfAssessment } from '../domain/quality.js';
import { estimatedDiyCostMicros, freshness01, type Outcome, verdict } from '../domain/verdict.js';
import type { Demand, LearningRecord } from '../store/learnings.js';

// How a stored learning is shown: prices, value signals, snippets and pending items. No I/O.

/** Body length under which a learning counts as low complexity, and from which it is high. */
const COMPLEXITY_CHARS = { medium: 400, high: 1500 } as const;

/** Complexity class of a learning, from the length of its body (it sets the base price and the DIY-cost estimate). */
export function complexityOf(body: string): Complexity {
  return body.length >= COMPLEXITY_CHARS.high ? 'high' : body.length >= COMPLEXITY_CHARS.medium ? 'medium' : 'low';
}

/** Rubric total (4..20) of a self-assessment, or null without one. */
export const rubricOf = (dims: Record<string, number> | null | undefined): number | null =>
  dims ? rubricTotal(dims as unknown as QualitySelfAssessment) : null;

/** Ranking quality 0..1: the rubric, with average helpfulness blended in from 3 distinct raters on. */
export const qualityOf = (l: Pick<LearningRecord, 'avgHelpfulness' | 'ratingCount' | 'qualityScore'>): number =>
  rankingQuality({ avgHelpfulness: l.avgHelpfulness, distinctRaters: l.ratingCount, rubricTotal: l.qualityScore });

/**
 * The dynamic price now, from base price, demand, quality and the contributor's override. Only a search stores
 * it (as the learning's current price); everything else reads the stored price.
 */
export function priceOf(l: LearningRecord, demand: Demand): number {
  return dynamicPriceMicros({
    basePriceMicros: l.basePriceMicro,
    demand,
    quality01: qualityOf(l),
    overrideMicros: l.overridePriceMicro,
  });
}

/** A new learning's base and current price (no demand yet). */
export function initialPrice(
  complexity: Complexity,
  dims: QualitySelfAssessment | undefined,
  overrideMicros: number | null,
) {
  const base = basePriceMicros(complexity);
  const quality01 = rankingQuality({
    avgHelpfulness: 0,
    distinctRaters: 0,
    rubricTotal: dims ? rubricTotal(dims) : null,
  });
  const current = dynamicPriceMicros({
    basePriceMicros: base,
    demand: { impressions7d: 0, impressions30d: 0, unlocks7d: 0, unlocks30d: 0 },
    quality01,
    overrideMicros,
  });
  return { base, current };
}

const round = (x: number, digits = 4) => Math.round(x * 10 ** digits) / 10 ** digits;

export function valueSignal(l: LearningRecord, priceMicros: number, now: number): LearningSnippet['value_signal'] {
  const diy = estimatedDiyCostMicros({
    complexity: l.complexity as Complexity,
    bodyLength: l.body.length,
    outcome: (l.outcome ?? 'success') as Outcome,
  });
  const age = now - (l.publishedAt ?? l.createdAt);
  return {
    estimated_diy_cost_usd: microToUsd(diy),
    quality_score: round(rubricTotal01(l.qualityScore)),
    verdict: verdict({
      priceMicros,
      estimatedDiyCostMicros: diy,
      quality01: qualityOf(l),
      freshness01: freshness01(age),
    }),
  };
}

/** The first 120 characters of the body (whole code points). */
export const snippetOf = (body: string): string => Array.from(body).slice(0, LIMITS.snippetLength).join('');

/** The price the contributor set on submit (SPEC unlock_price_usd / unlock_price); the floor when none was set. */
export const contributorPriceMicro = (l: Pick<LearningRecord, 'overridePriceMicro'>): number =>
  l.overridePriceMicro ?? usdToMicro(LIMITS.unlockPriceUsd.default);

export function toSnippet(l: LearningRecord, relevance: number, now: number): LearningSnippet {
  return {
    id: l.id,
    title: l.title,
    snippet: snippetOf(l.body),
    category: l.category as LearningSnippet['category'],
    task_context: l.taskContext,
    outcome: (l.outcome ?? 'success') as LearningSnippet['outcome'],
    tags: l.tags,
    quality: {
      unlocks: l.unlockCount,
      ratings: l.ratingCount,
      avg_helpfulness: round(l.avgHelpfulness, 3),
      score: l.qualityScore ?? 0,
    },
    relevance: round(relevance),
    unlock_price_usd: microToUsd(contributorPriceMicro(l)),
    current_price: microToUsd(l.currentPriceMicro),
    value_signal: valueSignal(l, l.currentPriceMicro, now),
  };
}

export type ScreenFlagName = 'injection' | 'content_sensitivity' | 'near_duplicate' | 'process_advice';

/** Screen flags (pending summary) by the review reason that carries them. */
const FLAG_OF: Partial<Record<ReviewReason, ScreenFlagName>> = {
  injection: 'injection',
  content_sensitivity: 'content_sensitivity',
  near_duplicate: 'near_duplicate',
  process_advice_screen: 'process_advice',
};
export const flagsOf = (reasons: readonly string[] | null): ScreenFlagName[] =>
  (reasons ?? []).map((r) => FLAG_OF[r as ReviewReason]).filter((f): f is ScreenFlagName => f !== undefined);

/** Quality score 0..1 of a held item's self-assessment, or null when unscored. */
export const scoreOf = (dims: Record<string, number> | null): number | null => {
  const total = rubricOf(dims);
  return total === null ? null : rubricTotal01(total);
};

export const laneOf = (l: Pick<LearningRecord, 'reviewReason' | 'qualityDimensions'>, threshold: number) =>
  lane({ flags: flagsOf(l.reviewReason), score: scoreOf(l.qualityDimensions), threshold });

const iso = (ms: number) => new Date(ms).toISOString();

/** A stored flag; rows from before flags had layers hold the rule name alone. */
const asInjectionFlag = (f: InjectionFlag | string): InjectionFlag =>
  typeof f === 'string'
    ? { layer: f === SEMANTIC_FINDING ? 'semantic' : 'instructions', rule: f, span: null, excerpt: null }
    : f;

export function toPendingItem(l: LearningRecord, threshold: number): PendingItem {
  return {
    id: l.id,
    title: l.title,
    body: l.body,
    category: l.category as PendingItem['category'],
    tags: l.tags,
    outcome: (l.outcome as PendingItem['outcome']) ?? null,
    // What a buyer is shown beside the body, so a reviewer judges all of it.
    task_context: l.taskContext,
    contributor_agent: l.contributorAgent,
    related_skills: l.relatedSkills,
    contributor_key_label: l.contributorKeyLabel,
    created_at: iso(l.createdAt),
    status: l.status,
    ...(l.injectionFlags?.length ? { injection_flags: l.injectionFlags.map(asInjectionFlag) } : {}),
    ...(l.possibleDuplicateOf
      ? {
          possible_duplicate_of: l.possibleDuplicateOf,
          possible_duplicate_similarity: l.possibleDuplicateSimilarity ?? 0,
        }
      : {}),
    review_reason: (l.reviewReason ?? []) as ReviewReason[],
    lane: laneOf(l, threshold),
    ...(l.sensitivityFindings?.length ? { sensitivity_findings: l.sensitivityFindings } : {}),
    ...(l.screeningNote ? { screening_note: l.screeningNote } : {}),
  };
}

export { iso as isoTime };

/** Every LearningFull field but `_revenue`, which the unlock that serves it adds. */
export function toLearningFull(
  l: LearningRecord,
  extra: { demand: Demand; helpfulnessScores: number[] },
  now: number,
): Omit<LearningFull, '_revenue'> {
  const snippet = toSnippet(l, 0, now);
  const { relevance: _relevance, ...fields } = snippet;
  return {
    ...fields,
    body: untrustedContent(l.body, l.bodyHash),
    body_hash: l.bodyHash,
    content_advisory: CONTENT_ADVISORY,
    content_trust: CONTENT_TRUST,
    contributor_wallet: l.contributorWallet,
    contributor_key_label: l.contributorKeyLabel,
    contributor_agent: l.contributorAgent,
    related_skills: l.relatedSkills,
    submission_channel: l.submissionChannel,
    visibility: l.visibility,
    unlock_price: microToUsd(contributorPriceMicro(l)),
    pricing: {
      base_price: microToUsd(l.basePriceMicro),
      current_price: microToUsd(l.currentPriceMicro),
      builder_override_price: l.overridePriceMicro === null ? null : microToUsd(l.overridePriceMicro),
      complexity: l.complexity,
      last_repriced_at: iso(l.lastRepricedAt),
    },
    demand: {
      search_impressions_7d: extra.demand.impressions7d,
      search_impressions_30d: extra.demand.impressions30d,
      unlocks_7d: extra.demand.unlocks7d,
      unlocks_30d: extra.demand.unlocks30d,
    },
    quality: { ...snippet.quality, helpfulness_scores: extra.helpfulnessScores },
    status: l.status,
    earnings: {
      gross_usd: microToUsd(l.grossMicro),
      contributor_share_usd: microToUsd(l.contributorMicro),
      platform_share_usd: microToUsd(l.platformMicro),
    },
    created_at: iso(l.createdAt),
    updated_at: iso(l.updatedAt),
    timestamp: iso(now),
  };
}
