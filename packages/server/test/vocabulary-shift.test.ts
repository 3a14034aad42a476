import { describe, expect, it } from 'vitest';
import { DEVELOPER_VOCABULARY, VOCABULARY_LINES } from '../src/domain/developer-vocabulary.js';
import { parseThesaurusLine } from '../src/domain/query-expansion.js';
import {
  LINES_PER_RECORD,
  linesByRecord,
  meanDirection,
  SHIFT_WEIGHT,
  shiftedVector,
} from '../src/domain/vocabulary-shift.js';

const unit = (...xs: number[]) => {
  const n = Math.hypot(...xs);
  return Float32Array.from(xs.map((x) => x / n));
};
const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);
const norm = (a: Float32Array) => Math.sqrt(dot(a, a));

describe('parseThesaurusLine', () => {
  it('keeps the phrases as written (trimmed) and the terms as words, once each', () => {
    expect(parseThesaurusLine(' Local disk | hard drive => filesystem  files filesystem')).toEqual({
      phrases: ['Local disk', 'hard drive'],
      terms: ['filesystem', 'files'],
    });
  });

  it.each(['no arrow', 'a => ', ' => b', 'a | | c => d', 'a => b => c'])('refuses %j', (line) => {
    expect(() => parseThesaurusLine(line)).toThrow(RangeError);
  });

  it('parses every line of the developer vocabulary', () => {
    expect(VOCABULARY_LINES).toHaveLength(DEVELOPER_VOCABULARY.length);
    for (const line of VOCABULARY_LINES) expect(line.terms.length).toBeGreaterThan(0);
  });
});

describe('meanDirection', () => {
  it('is the unit mean of its vectors', () => {
    const d = meanDirection([unit(1, 0, 0), unit(0, 1, 0)])!;
    expect(norm(d)).toBeCloseTo(1, 6);
    expect(d[0]).toBeCloseTo(Math.SQRT1_2, 6);
    expect(d[1]).toBeCloseTo(Math.SQRT1_2, 6);
    expect(d[2]).toBe(0);
  });

  it('is undefined for no vectors, and zero (not NaN) for vectors that cancel', () => {
    expect(meanDirection([])).toBeUndefined();
    expect([...meanDirection([unit(1, 0), unit(-1, 0)])!]).toEqual([0, 0]);
  });
});

describe('linesByRecord', () => {
  it('gives each record the lines ranking it highest, ties to the earlier line, at most LINES_PER_RECORD', () => {
    const ranked = [
      ['a', 'b', 'c'], // line 0
      ['c', 'a'], // line 1
      ['b', 'c'], // line 2
      ['c'], // line 3
    ];
    const out = linesByRecord(ranked);
    expect(LINES_PER_RECORD).toBe(2);
    expect(out.get('a')).toEqual([0, 1]);
    expect(out.get('b')).toEqual([2, 0]);
    expect(out.get('c')).toEqual([1, 3]);
    expect(linesByRecord(ranked, 1).get('c')).toEqual([1]);
    expect(linesByRecord(ranked, 3).get('c')).toEqual([1, 3, 2]);
  });

  it('leaves out records no line ranks, and lines that rank nothing', () => {
    expect(linesByRecord([[], ['x'], []])).toEqual(new Map([['x', [1]]]));
    expect(linesByRecord([]).size).toBe(0);
  });
});

describe('shiftedVector', () => {
  it('moves a unit vector toward the mean of its directions, by SHIFT_WEIGHT, and keeps it a unit vector', () => {
    const v = unit(1, 0, 0);
    const out = shiftedVector(v, [unit(0, 1, 0), unit(0, 0, 1)]);
    expect(norm(out)).toBeCloseTo(1, 6);
    const toward = unit(0, 1, 1);
    expect(dot(out, toward)).toBeGreaterThan(dot(v, toward));
    // v + w d, normalised: its cosine to v is 1 / sqrt(1 + w^2) when d is orthogonal to v.
    expect(dot(out, v)).toBeCloseTo(1 / Math.sqrt(1 + SHIFT_WEIGHT ** 2), 6);
    expect([...v]).toEqual([...unit(1, 0, 0)]); // the input is not changed
  });

  it('leaves the vector as it is without directions or at weight 0, and weights the move', () => {
    const v = unit(3, 4);
    expect([...shiftedVector(v, [])]).toEqual([...v]);
    expect([...shiftedVector(v, [unit(1, 0)], 0)]).toEqual([...v]);
    const far = shiftedVector(v, [unit(1, 0)], 2);
    const near = shiftedVector(v, [unit(1, 0)], 0.5);
    expect(far[0]).toBeGreaterThan(near[0]!);
  });
});
