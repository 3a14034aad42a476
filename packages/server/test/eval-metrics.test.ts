import { describe, expect, it } from 'vitest';
import { mean, ndcgAt, recallAt, reciprocalRank, score } from '../../../bench/lib/metrics.js';
import { queryWords, substringRanker } from '../../../bench/lib/substring.js';

const rel = { a: 2, b: 1, c: 1 };

describe('ndcgAt', () => {
  it('is 1 for the ideal order and 0 without a relevant id', () => {
    expect(ndcgAt(['a', 'b', 'c', 'x'], rel, 10)).toBeCloseTo(1, 12);
    expect(ndcgAt(['x', 'y'], rel, 10)).toBe(0);
    expect(ndcgAt([], {}, 10)).toBe(0);
  });

  it('uses linear graded gains with a log2 discount', () => {
    // DCG = 1/log2(2) + 2/log2(3); IDCG = 2/log2(2) + 1/log2(3) + 1/log2(4)
    const dcg = 1 + 2 / Math.log2(3);
    const idcg = 2 + 1 / Math.log2(3) + 1 / 2;
    expect(ndcgAt(['b', 'a'], rel, 10)).toBeCloseTo(dcg / idcg, 12);
  });

  it('cuts both the ranking and the ideal at k', () => {
    // only 'x' and 'a' count at k = 2: DCG = 2/log2(3); IDCG = 2 + 1/log2(3)
    expect(ndcgAt(['x', 'a', 'b'], rel, 2)).toBeCloseTo(2 / Math.log2(3) / (2 + 1 / Math.log2(3)), 12);
  });
});

describe('recallAt', () => {
  it('counts relevant ids of any grade in the first k', () => {
    expect(recallAt(['x', 'b', 'y', 'z', 'w', 'a'], rel, 5)).toBeCloseTo(1 / 3, 12);
    expect(recallAt(['a', 'b', 'c'], rel, 5)).toBe(1);
    expect(recallAt(['a'], {}, 5)).toBe(0);
  });

  it('counts only the ids of at least minGrade when given', () => {
    expect(recallAt(['x', 'b', 'y', 'z', 'w', 'a'], rel, 5, 2)).toBe(0);
    expect(recallAt(['a', 'x'], rel, 5, 2)).toBe(1);
    expect(recallAt(['b', 'c'], { b: 1, c: 1 }, 5, 2)).toBe(0);
  });
});

describe('reciprocalRank', () => {
  it('is 1 / the rank of the first relevant id, 0 when none', () => {
    expect(reciprocalRank(['x', 'y', 'c'], rel)).toBeCloseTo(1 / 3, 12);
    expect(reciprocalRank(['a'], rel)).toBe(1);
    expect(reciprocalRank(['x'], rel)).toBe(0);
  });
});

describe('score', () => {
  it('averages each metric over the queries', async () => {
    const queries = [
      { id: 'q1', query: 'one', relevant: { a: 2 } },
      { id: 'q2', query: 'two', relevant: { b: 1 } },
    ];
    const rankings: Record<string, string[]> = { one: ['a'], two: ['x', 'b'] };
    const r = await score(queries, async (q: string) => rankings[q]);
    expect(r.mrr).toBeCloseTo(mean([1, 0.5]), 12);
    expect(r.recall5).toBe(1);
    expect(r.recall5Exact).toBe(0.5);
    expect(r.ndcg10).toBeCloseTo(mean([1, 1 / Math.log2(3)]), 12);
  });
});

describe('substring baseline', () => {
  const skills = [
    { id: 'b-weather', name: 'Weather', description: 'Forecasts', tags: [] },
    { id: 'a-weather', name: 'Weatherly', description: 'Weather and forecast data', tags: ['weather'] },
    { id: 'sms', name: 'Texter', description: 'Send SMS', tags: ['sms'] },
  ];

  it('drops words that carry no intent', () => {
    expect(queryWords('I need a weather forecast for the city')).toEqual(['weather', 'forecast', 'city']);
  });

  it('ranks by matched words, then id, and matches inside words', () => {
    const rank = substringRanker(skills);
    expect(rank('weather forecast')).toEqual(['a-weather', 'b-weather']);
    expect(rank('forecast')).toEqual(['a-weather', 'b-weather']);
    expect(rank('sms')).toEqual(['sms']);
    expect(rank('nothing here')).toEqual([]);
  });
});
