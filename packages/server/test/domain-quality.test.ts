import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  blendScore,
  lane,
  meetsFloor,
  qualityScore01,
  rankingQuality,
  rubricTotal,
  rubricTotal01,
} from '../src/domain/quality.js';

const sa = (specificity: number, actionability: number, novelty: number, completeness: number) => ({
  specificity,
  actionability,
  novelty,
  completeness,
});

describe('rubric', () => {
  it('totals 4..20 and refuses values outside integers 1..5', () => {
    expect(rubricTotal(sa(1, 1, 1, 1))).toBe(4);
    expect(rubricTotal(sa(5, 5, 5, 5))).toBe(20);
    expect(rubricTotal(sa(3, 4, 5, 2))).toBe(14);
    for (const bad of [0, 6, 2.5, Number.NaN]) expect(() => rubricTotal(sa(3, 3, bad, 3))).toThrow(RangeError);
  });

  it('meets the floor at total >= 14 with every dimension >= 3, exactly at the edges', () => {
    expect(meetsFloor(sa(4, 4, 3, 3))).toBe(true); // 14, min 3
    expect(meetsFloor(sa(4, 3, 3, 3))).toBe(false); // 13
    expect(meetsFloor(sa(5, 5, 5, 2))).toBe(false); // 17 but one dimension 2
    expect(meetsFloor(sa(5, 5, 5, 5))).toBe(true);
  });

  it('scores 0..1 as (total - 4) / 16', () => {
    expect(qualityScore01(sa(1, 1, 1, 1))).toBe(0);
    expect(qualityScore01(sa(5, 5, 5, 5))).toBe(1);
    expect(qualityScore01(sa(4, 4, 3, 3))).toBe(10 / 16);
    expect(rubricTotal01(12)).toBe(0.5);
    expect(rubricTotal01(null)).toBe(0.5);
    expect(rubricTotal01(99)).toBe(1);
  });
});

describe('rankingQuality', () => {
  it('ignores ratings below 3 distinct raters', () => {
    expect(rankingQuality({ avgHelpfulness: 5, distinctRaters: 2, rubricTotal: 12 })).toBe(0.5);
    expect(rankingQuality({ avgHelpfulness: 1, distinctRaters: 0, rubricTotal: 20 })).toBe(1);
  });

  it('blends helpfulness in from 3 raters with weight raters / (raters + 3), at most 0.8', () => {
    expect(rankingQuality({ avgHelpfulness: 5, distinctRaters: 3, rubricTotal: 12 })).toBeCloseTo(0.75, 12);
    expect(rankingQuality({ avgHelpfulness: 1, distinctRaters: 12, rubricTotal: 20 })).toBeCloseTo(0.2, 12);
    expect(rankingQuality({ avgHelpfulness: 1, distinctRaters: 1000, rubricTotal: 20 })).toBeCloseTo(0.2, 12);
    expect(rankingQuality({ avgHelpfulness: 3, distinctRaters: 6, rubricTotal: null })).toBeCloseTo(0.5, 12);
  });

  it('property: stays in 0..1', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 5, noNaN: true }),
        fc.integer({ min: 0, max: 10_000 }),
        fc.option(fc.integer({ min: 4, max: 20 })),
        (avg, raters, total) => {
          const q = rankingQuality({ avgHelpfulness: avg, distinctRaters: raters, rubricTotal: total });
          return q >= 0 && q <= 1;
        },
      ),
    );
  });
});

describe('blendScore', () => {
  it('is relevance × (0.75 + 0.15 quality + 0.10 freshness)', () => {
    expect(blendScore({ lexical: 1, semantic: 1, quality01: 1, freshness01: 1 })).toBe(1);
    expect(blendScore({ lexical: 0.8, semantic: 0.4, quality01: 0, freshness01: 0 })).toBeCloseTo(0.45, 12);
    expect(blendScore({ lexical: 0.6, semantic: null, quality01: 0.5, freshness01: 1 })).toBeCloseTo(0.6 * 0.925, 12);
    expect(blendScore({ lexical: 0, semantic: 0, quality01: 1, freshness01: 1 })).toBe(0);
  });

  it('property: quality and freshness never outweigh a relevance lead of more than a third', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }), (q, f) => {
        const strong = blendScore({ lexical: 0.4, semantic: 0.4, quality01: 0, freshness01: 0 });
        const weak = blendScore({ lexical: 0.3, semantic: 0.29, quality01: q, freshness01: f });
        return strong > weak;
      }),
    );
  });
});

describe('lane', () => {
  it('flags → needs_your_eyes; no score → needs_score; score vs threshold decides the rest, inclusive', () => {
    expect(lane({ flags: ['injection'], score: 1, threshold: 0.5 })).toBe('needs_your_eyes');
    expect(lane({ flags: [], score: null, threshold: 0.5 })).toBe('needs_score');
    expect(lane({ flags: ['near_duplicate'], score: null, threshold: 0.5 })).toBe('needs_your_eyes');
    expect(lane({ flags: [], score: 0.5, threshold: 0.5 })).toBe('ready_to_publish');
    expect(lane({ flags: [], score: 0.49, threshold: 0.5 })).toBe('needs_your_eyes');
  });
});
