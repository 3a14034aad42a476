import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type Demand,
  PRICE_CEILING,
  PRICE_DEFAULT,
  PRICE_FLOOR,
  basePriceMicros,
  clampPriceMicros,
  demandMultiplier,
  dynamicPriceMicros,
  qualityMultiplier,
} from '../src/domain/pricing.js';

const NO_DEMAND: Demand = { impressions7d: 0, impressions30d: 0, unlocks7d: 0, unlocks30d: 0 };
const count = fc.integer({ min: 0, max: 10_000_000 });
const demand = fc.record({ impressions7d: count, impressions30d: count, unlocks7d: count, unlocks30d: count });
const base = fc.integer({ min: 0, max: 100_000_000 });
const quality = fc.double({ min: 0, max: 1, noNaN: true });
const anyNumber = fc.oneof(fc.double(), fc.integer({ min: -1e12, max: 1e12 }));
const keys = ['impressions7d', 'impressions30d', 'unlocks7d', 'unlocks30d'] as const;

describe('basePriceMicros', () => {
  it('is the floor for low, the default for medium and 0.20 USDC for high', () => {
    expect(basePriceMicros('low')).toBe(PRICE_FLOOR);
    expect(basePriceMicros('medium')).toBe(PRICE_DEFAULT);
    expect(basePriceMicros('high')).toBe(200_000);
    expect(() => basePriceMicros('extreme' as never)).toThrow(RangeError);
  });
});

describe('dynamicPriceMicros', () => {
  it('prices a medium item with no demand and middling quality at the default', () => {
    expect(
      dynamicPriceMicros({ basePriceMicros: PRICE_DEFAULT, demand: NO_DEMAND, quality01: 0.5, overrideMicros: null }),
    ).toBe(PRICE_DEFAULT);
  });

  it('follows the documented formula: base × (1 + Σ w·ln(1+n), cap 4) × (0.75 + 0.5·q), 0.001 steps', () => {
    const d = { impressions7d: 100, impressions30d: 400, unlocks7d: 5, unlocks30d: 12 };
    const m = 1 + 0.04 * Math.log1p(100) + 0.02 * Math.log1p(400) + 0.25 * Math.log1p(5) + 0.1 * Math.log1p(12);
    expect(demandMultiplier(d)).toBeCloseTo(m, 12);
    const expected = Math.round((200_000 * m * 1.2) / 1000) * 1000;
    expect(dynamicPriceMicros({ basePriceMicros: 200_000, demand: d, quality01: 0.9, overrideMicros: null })).toBe(
      expected,
    );
    expect(demandMultiplier({ ...d, unlocks7d: 1e30 })).toBe(4);
    expect(qualityMultiplier(0)).toBe(0.75);
    expect(qualityMultiplier(1)).toBe(1.25);
  });

  it('treats negative, fractional-infinite and NaN inputs as no demand / no quality rather than failing', () => {
    const bad = { impressions7d: -5, impressions30d: Number.NaN, unlocks7d: Number.POSITIVE_INFINITY, unlocks30d: -1 };
    expect(demandMultiplier(bad)).toBe(1);
    expect(qualityMultiplier(Number.NaN)).toBe(0.75);
    expect(
      dynamicPriceMicros({ basePriceMicros: Number.NaN, demand: NO_DEMAND, quality01: 0.5, overrideMicros: null }),
    ).toBe(PRICE_DEFAULT);
    expect(clampPriceMicros(Number.NaN)).toBe(PRICE_FLOOR);
  });

  it('property: always an integer within floor and ceiling, whatever the inputs', () => {
    fc.assert(
      fc.property(anyNumber, demand, anyNumber, fc.option(anyNumber), (b, d, q, o) => {
        const p = dynamicPriceMicros({ basePriceMicros: b, demand: d, quality01: q, overrideMicros: o });
        return Number.isInteger(p) && p >= PRICE_FLOOR && p <= PRICE_CEILING;
      }),
      { numRuns: 2000 },
    );
  });

  it('property: never falls as any demand count rises', () => {
    fc.assert(
      fc.property(base, demand, quality, fc.constantFrom(...keys), count, (b, d, q, k, extra) => {
        const before = dynamicPriceMicros({ basePriceMicros: b, demand: d, quality01: q, overrideMicros: null });
        const after = dynamicPriceMicros({
          basePriceMicros: b,
          demand: { ...d, [k]: d[k] + extra },
          quality01: q,
          overrideMicros: null,
        });
        return after >= before;
      }),
      { numRuns: 3000 },
    );
  });

  it('property: never falls as quality or base price rises', () => {
    fc.assert(
      fc.property(base, base, demand, quality, quality, (b1, b2, d, q1, q2) => {
        const p = (b: number, q: number) =>
          dynamicPriceMicros({ basePriceMicros: b, demand: d, quality01: q, overrideMicros: null });
        return p(Math.max(b1, b2), q1) >= p(Math.min(b1, b2), q1) && p(b1, Math.max(q1, q2)) >= p(b1, Math.min(q1, q2));
      }),
      { numRuns: 2000 },
    );
  });

  it('property: honours the override, clamped to floor and ceiling, regardless of demand and quality', () => {
    fc.assert(
      fc.property(base, demand, quality, fc.integer({ min: -1e9, max: 1e10 }), (b, d, q, o) => {
        const p = dynamicPriceMicros({ basePriceMicros: b, demand: d, quality01: q, overrideMicros: o });
        return p === Math.min(PRICE_CEILING, Math.max(PRICE_FLOOR, o));
      }),
      { numRuns: 2000 },
    );
    const at = (o: number) =>
      dynamicPriceMicros({ basePriceMicros: 1, demand: NO_DEMAND, quality01: 0, overrideMicros: o });
    expect(at(1_234_000)).toBe(1_234_000);
    expect(at(75_500.4)).toBe(75_500);
    expect(at(Number.NaN)).toBe(PRICE_FLOOR);
    expect(at(10)).toBe(PRICE_FLOOR);
    expect(at(90_000_000)).toBe(PRICE_CEILING);
    expect(at(PRICE_FLOOR)).toBe(PRICE_FLOOR);
    expect(at(PRICE_CEILING)).toBe(PRICE_CEILING);
  });
});
