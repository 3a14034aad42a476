// Learning quality: the contributor's self-assessment rubric, community ratings, the search blend and the
// pending summary's lanes (docs/pricing.md, "Quality and ranking").

export interface QualitySelfAssessment {
  specificity: number;
  actionability: number;
  novelty: number;
  completeness: number;
}

const DIMENSIONS = ['specificity', 'actionability', 'novelty', 'completeness'] as const;
export const RUBRIC_MIN = 1;
export const RUBRIC_MAX = 5;
/** The spec's floor: a total of at least 14 and every dimension at least 3. */
export const RUBRIC_FLOOR_TOTAL = 14;
export const RUBRIC_FLOOR_DIMENSION = 3;
/** Community signals count only from this many distinct raters on. */
export const MIN_DISTINCT_RATERS = 3;

function check(sa: QualitySelfAssessment): void {
  for (const d of DIMENSIONS) {
    const v = sa[d];
    if (!Number.isInteger(v) || v < RUBRIC_MIN || v > RUBRIC_MAX) throw new RangeError(`${d} must be an integer 1..5`);
  }
}

/** Sum of the four dimensions: 4..20. */
export function rubricTotal(sa: QualitySelfAssessment): number {
  check(sa);
  return DIMENSIONS.reduce((n, d) => n + sa[d], 0);
}

/** Total ≥ 14 and each dimension ≥ 3; below it a learning is held (below_quality_floor), never rejected. */
export function meetsFloor(sa: QualitySelfAssessment): boolean {
  return rubricTotal(sa) >= RUBRIC_FLOOR_TOTAL && DIMENSIONS.every((d) => sa[d] >= RUBRIC_FLOOR_DIMENSION);
}

/** The rubric on 0..1: (total − 4) / 16, so all 1s is 0 and all 5s is 1. */
export function qualityScore01(sa: QualitySelfAssessment): number {
  return (rubricTotal(sa) - DIMENSIONS.length * RUBRIC_MIN) / (DIMENSIONS.length * (RUBRIC_MAX - RUBRIC_MIN));
}

/** A rubric total (4..20, or null when no self-assessment was given) on 0..1; null is neutral 0.5. */
export function rubricTotal01(total: number | null): number {
  if (total === null || !Number.isFinite(total)) return 0.5;
  return Math.min(1, Math.max(0, (total - 4) / 16));
}

/** Largest share community ratings can take of the ranking quality. */
export const MAX_COMMUNITY_WEIGHT = 0.8;

/**
 * Quality for ranking, 0..1. Under 3 distinct raters it is the rubric alone; from 3 on, average helpfulness
 * ((avg − 1) / 4) is blended in with weight raters / (raters + 3), at most 0.8: 0.5 at 3 raters, 0.8 at 12.
 */
export function rankingQuality(input: {
  avgHelpfulness: number;
  distinctRaters: number;
  rubricTotal: number | null;
}): number {
  const rubric = rubricTotal01(input.rubricTotal);
  const raters = Number.isFinite(input.distinctRaters) ? input.distinctRaters : 0;
  if (raters < MIN_DISTINCT_RATERS) return rubric;
  const community = Math.min(1, Math.max(0, (input.avgHelpfulness - 1) / 4));
  const w = Math.min(MAX_COMMUNITY_WEIGHT, raters / (raters + MIN_DISTINCT_RATERS));
  return (1 - w) * rubric + w * community;
}

/** POST /knowledge blend: relevance decides, quality and freshness reorder among the relevant. */
export const BLEND_WEIGHTS = { lexical: 0.5, semantic: 0.5, base: 0.75, quality: 0.15, freshness: 0.1 } as const;

/**
 * relevance × (0.75 + 0.15 · quality + 0.10 · freshness), where relevance = 0.5 · lexical + 0.5 · semantic
 * (lexical alone when semantic is null, i.e. not available). All inputs 0..1 (clamped), result 0..1. A
 * result with no relevance scores 0 however good it is; quality and freshness move a result by at most 25%.
 */
export function blendScore(input: {
  lexical: number;
  semantic: number | null;
  quality01: number;
  freshness01: number;
}): number {
  const c = (x: number): number => (Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0);
  const w = BLEND_WEIGHTS;
  const relevance =
    input.semantic === null ? c(input.lexical) : w.lexical * c(input.lexical) + w.semantic * c(input.semantic);
  return relevance * (w.base + w.quality * c(input.quality01) + w.freshness * c(input.freshness01));
}

export type Lane = 'ready_to_publish' | 'needs_score' | 'needs_your_eyes';

/**
 * The pending summary's lane: any screen flag → needs_your_eyes; otherwise no score → needs_score; a score
 * (0..1) at or above the threshold → ready_to_publish; below it → needs_your_eyes.
 */
export function lane(input: { flags: readonly string[]; score: number | null; threshold: number }): Lane {
  if (input.flags.length > 0) return 'needs_your_eyes';
  if (input.score === null || Number.isNaN(input.score)) return 'needs_score';
  return input.score >= input.threshold ? 'ready_to_publish' : 'needs_your_eyes';
}
