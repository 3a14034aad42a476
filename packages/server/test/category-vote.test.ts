import { describe, expect, it } from 'vitest';
import { votedCategory } from '../src/domain/category-vote.js';

describe('votedCategory', () => {
  it('names the category held by a quorum of the first voters', () => {
    expect(votedCategory(['a', 'b', 'a', 'c', 'a'], 5, 3)).toBe('a');
    expect(votedCategory(['a', 'a', 'a'], 5, 3)).toBe('a');
    expect(votedCategory(['b', 'a', 'b', 'a', 'b', 'a', 'a'], 5, 3)).toBe('b');
  });

  it('names none without a quorum, counting only the first voters and skipping unknown categories', () => {
    expect(votedCategory(['a', 'b', 'a', 'b', 'c'], 5, 3)).toBeUndefined();
    expect(votedCategory(['a', 'b', 'c', 'd', 'e', 'a', 'a'], 5, 3)).toBeUndefined();
    expect(votedCategory(['a', undefined, undefined, 'a', undefined], 5, 3)).toBeUndefined();
    expect(votedCategory([undefined, 'a', 'a', 'a'], 5, 3)).toBe('a');
    expect(votedCategory([], 5, 3)).toBeUndefined();
  });

  it('every combination of three categories over five voters: the answer is the category with three or more', () => {
    const cats = ['a', 'b', 'c'];
    for (let n = 0; n < 3 ** 5; n++) {
      const list = Array.from({ length: 5 }, (_, i) => cats[Math.floor(n / 3 ** i) % 3]!);
      const counts = cats.map((c) => list.filter((x) => x === c).length);
      const expected = cats.find((_, i) => counts[i]! >= 3);
      expect(votedCategory(list, 5, 3)).toBe(expected);
    }
  });

  it('refuses a quorum that is not a majority (two categories could both win)', () => {
    expect(() => votedCategory(['a'], 5, 2)).toThrow(RangeError);
    expect(() => votedCategory(['a'], 4, 2)).toThrow(RangeError);
    expect(votedCategory(['a', 'a', 'a'], 4, 3)).toBe('a');
  });
});
