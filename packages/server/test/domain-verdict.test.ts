import { describe, expect, it } from 'vitest';
import { FRESHNESS_MIN, benchmarkMicros, estimatedDiyCostMicros, freshness01, verdict } from '../src/domain/verdict.js';

const DAY = 86_400_000;
// Benchmark 400,000 micros: DIY 800,000 × quality 0.5 × freshness 1.
const at = (priceMicros: number) =>
  verdict({ priceMicros, estimatedDiyCostMicros: 800_000, quality01: 0.5, freshness01: 1 });

describe('verdict', () => {
  it('uses benchmark = DIY × quality × freshness', () => {
    expect(benchmarkMicros({ estimatedDiyCostMicros: 800_000, quality01: 0.5, freshness01: 0.25 })).toBe(100_000);
    expect(benchmarkMicros({ estimatedDiyCostMicros: -5, quality01: 2, freshness01: Number.NaN })).toBe(0);
  });

  it('strong_buy up to and including 0.25 × benchmark', () => {
    expect(at(50_000)).toBe('strong_buy');
    expect(at(100_000)).toBe('strong_buy');
    expect(at(100_001)).toBe('recommended');
  });

  it('recommended above 0.25 and up to and including 0.75 × benchmark', () => {
    expect(at(300_000)).toBe('recommended');
    expect(at(300_001)).toBe('consider');
  });

  it('consider above 0.75 and up to and including 1.5 × benchmark; expensive iff above 1.5 ×', () => {
    expect(at(600_000)).toBe('consider');
    expect(at(600_001)).toBe('expensive');
    expect(at(50_000_000)).toBe('expensive');
  });

  it('makes any positive price expensive when quality or freshness is 0', () => {
    expect(verdict({ priceMicros: 50_000, estimatedDiyCostMicros: 9e9, quality01: 0, freshness01: 1 })).toBe(
      'expensive',
    );
    expect(verdict({ priceMicros: 50_000, estimatedDiyCostMicros: 9e9, quality01: 1, freshness01: 0 })).toBe(
      'expensive',
    );
  });
});

describe('estimatedDiyCostMicros', () => {
  it('is the complexity base × outcome factor × (1 + min(1, length / 4000))', () => {
    expect(estimatedDiyCostMicros({ complexity: 'low', bodyLength: 0, outcome: 'success' })).toBe(500_000);
    expect(estimatedDiyCostMicros({ complexity: 'medium', bodyLength: 2_000, outcome: 'success' })).toBe(3_000_000);
    expect(estimatedDiyCostMicros({ complexity: 'high', bodyLength: 4_000, outcome: 'workaround' })).toBe(19_200_000);
    expect(estimatedDiyCostMicros({ complexity: 'high', bodyLength: 1_000_000, outcome: 'workaround' })).toBe(
      19_200_000,
    );
    expect(estimatedDiyCostMicros({ complexity: 'medium', bodyLength: 0, outcome: 'failure' })).toBe(2_200_000);
    expect(estimatedDiyCostMicros({ complexity: 'medium', bodyLength: Number.NaN, outcome: 'partial' })).toBe(
      1_600_000,
    );
  });

  it('refuses an unknown complexity or outcome', () => {
    expect(() => estimatedDiyCostMicros({ complexity: 'x' as never, bodyLength: 1, outcome: 'success' })).toThrow(
      RangeError,
    );
    expect(() => estimatedDiyCostMicros({ complexity: 'low', bodyLength: 1, outcome: 'x' as never })).toThrow(
      RangeError,
    );
  });
});

describe('freshness01', () => {
  it('is 1 for 30 days (and for a negative age), then halves every 365 days, never below 0.2', () => {
    expect(freshness01(-DAY)).toBe(1);
    expect(freshness01(0)).toBe(1);
    expect(freshness01(30 * DAY)).toBe(1);
    expect(freshness01(31 * DAY)).toBeLessThan(1);
    expect(freshness01(395 * DAY)).toBeCloseTo(0.5, 12);
    expect(freshness01(760 * DAY)).toBeCloseTo(0.25, 12);
    expect(freshness01(3650 * DAY)).toBe(FRESHNESS_MIN);
    expect(freshness01(Number.NaN)).toBe(FRESHNESS_MIN);
  });
});
