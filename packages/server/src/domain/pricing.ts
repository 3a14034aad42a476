// Dynamic unlock pricing (docs/pricing.md). Money is integer micro-USDC (1 USDC = 1,000,000).

export const PRICE_FLOOR = 50_000;
export const PRICE_DEFAULT = 80_000;
export const PRICE_CEILING = 50_000_000;
/** Prices move in steps of 0.001 USDC, so they read cleanly and small demand changes don't churn them. */
export const PRICE_STEP = 1_000;

export type Complexity = 'low' | 'medium' | 'high';

const BASE_PRICE: Record<Complexity, number> = { low: PRICE_FLOOR, medium: PRICE_DEFAULT, high: 200_000 };

/** Base price by complexity: low 0.05, medium 0.08 (the default), high 0.20 USDC. */
export function basePriceMicros(complexity: Complexity): number {
  const base = BASE_PRICE[complexity];
  if (base === undefined) throw new RangeError(`unknown complexity: ${String(complexity)}`);
  return base;
}

export interface Demand {
  impressions7d: number;
  impressions30d: number;
  unlocks7d: number;
  unlocks30d: number;
}

/** Weight of ln(1 + count) for each demand count: unlocks are stronger signals than impressions. */
export const DEMAND_WEIGHTS: Readonly<Record<keyof Demand, number>> = {
  impressions7d: 0.04,
  impressions30d: 0.02,
  unlocks7d: 0.25,
  unlocks30d: 0.1,
};
/** The demand multiplier never exceeds this. */
export const DEMAND_CAP = 4;

/** A count as the formula reads it: non-negative and finite, anything else counts as 0. */
const count = (n: number): number => (Number.isFinite(n) && n > 0 ? n : 0);
const clamp01 = (x: number): number => (Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0);

/** Clamps to floor..ceiling and rounds to the price step (never below the floor, never above the ceiling). */
export function clampPriceMicros(micros: number): number {
  if (Number.isNaN(micros)) return PRICE_FLOOR;
  const stepped = Math.round(micros / PRICE_STEP) * PRICE_STEP;
  return Math.min(PRICE_CEILING, Math.max(PRICE_FLOOR, stepped));
}

/** 1 + Σ weight · ln(1 + count), capped at DEMAND_CAP; non-decreasing in every count. */
export function demandMultiplier(demand: Demand): number {
  let m = 1;
  for (const k of Object.keys(DEMAND_WEIGHTS) as Array<keyof Demand>)
    m += DEMAND_WEIGHTS[k] * Math.log1p(count(demand[k]));
  return Math.min(DEMAND_CAP, m);
}

/** 0.75 + 0.5 · quality: an unrated-quality (0) item sells at 0.75 of base, a perfect one at 1.25. */
export function qualityMultiplier(quality01: number): number {
  return 0.75 + 0.5 * clamp01(quality01);
}

/**
 * The current price: the builder's override when there is one (to the whole micro, clamped to floor..ceiling),
 * otherwise base × demand multiplier × quality multiplier, clamped and rounded to the price step.
 */
export function dynamicPriceMicros(input: {
  basePriceMicros: number;
  demand: Demand;
  quality01: number;
  overrideMicros: number | null;
}): number {
  if (input.overrideMicros !== null) {
    const o = input.overrideMicros;
    if (Number.isNaN(o)) return PRICE_FLOOR;
    return Math.min(PRICE_CEILING, Math.max(PRICE_FLOOR, Math.round(o)));
  }
  const base = Number.isFinite(input.basePriceMicros) ? input.basePriceMicros : PRICE_DEFAULT;
  return clampPriceMicros(base * demandMultiplier(input.demand) * qualityMultiplier(input.quality01));
}
