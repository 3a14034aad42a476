import { describe, expect, it } from 'vitest';
import { RRF_K, reciprocalRankFusion } from '../src/domain/fusion.js';

const ids = (hits: { id: string }[]) => hits.map((h) => h.id);

describe('reciprocalRankFusion', () => {
  it('sums 1/(k + rank) and rewards agreement over a single first place', () => {
    const fused = reciprocalRankFusion([
      ['a', 'b', 'c'],
      ['b', 'c', 'a'],
    ]);
    // b: 1/62 + 1/61, a: 1/61 + 1/63, c: 1/63 + 1/62
    expect(ids(fused)).toEqual(['b', 'a', 'c']);
    expect(fused[0]!.score).toBeCloseTo(1 / 62 + 1 / 61, 12);
    expect(fused[1]!.score).toBeCloseTo(1 / 61 + 1 / 63, 12);
  });

  it('normalises relevance to 0..1: first in every ranking is 1, first in one of two is 0.5', () => {
    const both = reciprocalRankFusion([['x', 'y'], ['x']]);
    expect(both[0]).toMatchObject({ id: 'x', relevance: 1 });
    expect(both[1]!.relevance).toBeCloseTo(1 / 62 / (2 / 61), 12);
    const one = reciprocalRankFusion([['x'], ['y']]);
    expect(one.map((h) => h.relevance)).toEqual([0.5, 0.5]);
    for (const h of reciprocalRankFusion([
      ['a', 'b', 'c', 'd'],
      ['d', 'c'],
    ])) {
      expect(h.relevance).toBeGreaterThan(0);
      expect(h.relevance).toBeLessThanOrEqual(1);
    }
  });

  it('with one ranking empty, keeps the other order and counts the miss in relevance', () => {
    const fused = reciprocalRankFusion([[], ['s1', 's2', 's3']]);
    expect(ids(fused)).toEqual(['s1', 's2', 's3']);
    expect(fused[0]!.relevance).toBe(0.5);
    // A single ranking (the other ranker not run) tops out at 1.
    expect(reciprocalRankFusion([['s1', 's2']])[0]!.relevance).toBe(1);
    expect(reciprocalRankFusion([[], []])).toEqual([]);
    expect(reciprocalRankFusion([])).toEqual([]);
  });

  it('breaks ties by best single rank, then by first appearance', () => {
    // p and q tie on score (rank 1 + rank 2 each); both have best rank 1 -> first appearance decides.
    expect(
      ids(
        reciprocalRankFusion([
          ['p', 'q'],
          ['q', 'p'],
        ]),
      ),
    ).toEqual(['p', 'q']);
    expect(
      ids(
        reciprocalRankFusion([
          ['q', 'p'],
          ['p', 'q'],
        ]),
      ),
    ).toEqual(['q', 'p']);
    // Same score from different places: rank 1 alone vs rank 1 alone in the other list.
    expect(ids(reciprocalRankFusion([['m'], ['n']]))).toEqual(['m', 'n']);
  });

  it('counts a repeated id once, at its first place', () => {
    const fused = reciprocalRankFusion([['a', 'a', 'b']]);
    expect(ids(fused)).toEqual(['a', 'b']);
    expect(fused[1]!.score).toBeCloseTo(1 / (RRF_K + 2), 12);
  });

  it('k controls how fast lower ranks fade, and must be positive', () => {
    const rankings = [['a', 'b', 'c', 'd', 'e'], ['a']];
    const relevanceOfE = (k: number) => reciprocalRankFusion(rankings, k).find((h) => h.id === 'e')!.relevance;
    // 5th place in one of two rankings: (1/(k+5)) / (2/(k+1)); a larger k flattens the curve.
    expect(relevanceOfE(1)).toBeCloseTo(1 / 6, 12);
    expect(relevanceOfE(60)).toBeCloseTo(61 / 130, 12);
    expect(relevanceOfE(1000)).toBeGreaterThan(relevanceOfE(60));
    expect(() => reciprocalRankFusion(rankings, 0)).toThrow(RangeError);
    expect(() => reciprocalRankFusion(rankings, -5)).toThrow(RangeError);
    expect(() => reciprocalRankFusion(rankings, Number.NaN)).toThrow(RangeError);
  });

  it('weighs each ranking: a weight of 2 counts as the same places twice, 0 ignores the ranking', () => {
    const weighted = reciprocalRankFusion(
      [
        ['a', 'b'],
        ['b', 'a'],
      ],
      5,
      [2, 1],
    );
    expect(weighted.map((h) => h.id)).toEqual(['a', 'b']);
    expect(weighted[0]!.score).toBeCloseTo(2 / 6 + 1 / 7);
    expect(weighted[0]!.relevance).toBeCloseTo((2 / 6 + 1 / 7) / (3 / 6));
    expect(
      reciprocalRankFusion(
        [
          ['a', 'b'],
          ['b', 'a'],
        ],
        5,
        [0, 1],
      ).map((h) => h.id),
    ).toEqual(['b', 'a']);
    expect(() => reciprocalRankFusion([['a']], 5, [1, 1])).toThrow(RangeError);
    expect(() => reciprocalRankFusion([['a']], 5, [-1])).toThrow(RangeError);
    expect(() => reciprocalRankFusion([['a']], 5, [Number.NaN])).toThrow(RangeError);
  });
});
