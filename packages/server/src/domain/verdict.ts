// The value signal of a search result (docs/pricing.md): the price against a benchmark of what doing the
// work oneself would cost, adjusted for the learning's quality and freshness.
import type { Complexity } from './pricing.js';

export type Verdict = 'strong_buy' | 'recommended' | 'consider' | 'expensive';
export type Outcome = 'success' | 'partial' | 'failure' | 'workaround';

/** Verdict thresholds as price / benchmark: at or below each bound gets that verdict. */
export const VERDICT_BOUNDS = { strong_buy: 0.25, recommended: 0.75, consider: 1.5 } as const;

const clamp01 = (x: number): number => (Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0);

/** benchmark = estimated DIY cost × quality × freshness (micro-USDC, not rounded). */
export function benchmarkMicros(input: {
  estimatedDiyCostMicros: number;
  quality01: number;
  freshness01: number;
}): number {
  return Math.max(0, input.estimatedDiyCostMicros) * clamp01(input.quality01) * clamp01(input.freshness01);
}

/**
 * strong_buy: price ≤ 0.25 × benchmark; recommended: ≤ 0.75 ×; consider: ≤ 1.5 ×; expensive: above 1.5 ×.
 * A zero benchmark (no quality or fully stale) makes every positive price expensive.
 */
export function verdict(input: {
  priceMicros: number;
  estimatedDiyCostMicros: number;
  quality01: number;
  freshness01: number;
}): Verdict {
  const benchmark = benchmarkMicros(input);
  const price = input.priceMicros;
  if (price <= VERDICT_BOUNDS.strong_buy * benchmark) return 'strong_buy';
  if (price <= VERDICT_BOUNDS.recommended * benchmark) return 'recommended';
  if (price <= VERDICT_BOUNDS.consider * benchmark) return 'consider';
  return 'expensive';
}

/** What rediscovering the knowledge would cost an agent or engineer, by complexity (micro-USDC). */
export const DIY_BASE_MICROS: Readonly<Record<Complexity, number>> = {
  low: 500_000,
  medium: 2_000_000,
  high: 8_000_000,
};
/** Knowing what does not work or how to get around it saves dead ends; a partial result saves less. */
export const DIY_OUTCOME_FACTOR: Readonly<Record<Outcome, number>> = {
  success: 1,
  workaround: 1.2,
  failure: 1.1,
  partial: 0.8,
};
/** Body length at which the detail factor reaches its maximum of 2. */
export const DIY_FULL_DETAIL_CHARS = 4_000;

/** DIY base × outcome factor × detail factor (1 + min(1, bodyLength / 4000)), rounded to whole micros. */
export function estimatedDiyCostMicros(input: {
  complexity: Complexity;
  bodyLength: number;
  outcome: Outcome;
}): number {
  const base = DIY_BASE_MICROS[input.complexity];
  if (base === undefined) throw new RangeError(`unknown complexity: ${String(input.complexity)}`);
  const outcome = DIY_OUTCOME_FACTOR[input.outcome];
  if (outcome === undefined) throw new RangeError(`unknown outcome: ${String(input.outcome)}`);
  const length = Number.isFinite(input.bodyLength) ? Math.max(0, input.bodyLength) : 0;
  return Math.round(base * outcome * (1 + Math.min(1, length / DIY_FULL_DETAIL_CHARS)));
}

const DAY_MS = 86_400_000;
/** Full freshness for this long after publication. */
export const FRESH_FOR_MS = 30 * DAY_MS;
/** After that, freshness halves every year… */
export const FRESHNESS_HALF_LIFE_MS = 365 * DAY_MS;
/** …but never drops below this: old operational knowledge is often still right. */
export const FRESHNESS_MIN = 0.2;

/** 1 for the first 30 days (and for a negative age), then 0.5^((age − 30 d) / 365 d), at least 0.2. */
export function freshness01(ageMs: number): number {
  if (Number.isNaN(ageMs)) return FRESHNESS_MIN;
  const stale = Math.max(0, ageMs - FRESH_FOR_MS);
  return Math.max(FRESHNESS_MIN, 0.5 ** (stale / FRESHNESS_HALF_LIFE_MS));
}
