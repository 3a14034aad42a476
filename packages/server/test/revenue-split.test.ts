import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CONTRIBUTOR_PERCENT, splitRevenue } from '../src/domain/revenue-split.js';

const paid = fc.integer({ min: 0, max: 50_000_000_000 });

describe('splitRevenue', () => {
  it('pays 70% direct and 60% discovery-driven of a round amount', () => {
    expect(splitRevenue({ paidMicro: 100_000, discovery: false, selfDealing: false })).toMatchObject({
      contributorMicro: 70_000,
      platformMicro: 30_000,
    });
    expect(splitRevenue({ paidMicro: 100_000, discovery: true, selfDealing: false })).toMatchObject({
      contributorMicro: 60_000,
      platformMicro: 40_000,
    });
  });

  it('rounds the contributor share down and gives the platform the odd micro-unit', () => {
    expect(splitRevenue({ paidMicro: 1, discovery: false, selfDealing: false })).toMatchObject({
      contributorMicro: 0,
      platformMicro: 1,
    });
    expect(splitRevenue({ paidMicro: 50_001, discovery: false, selfDealing: false })).toMatchObject({
      contributorMicro: 35_000,
      platformMicro: 15_001,
    });
  });

  it('contributor + platform = paid, exactly, for any amount and kind', () => {
    fc.assert(
      fc.property(paid, fc.boolean(), fc.boolean(), (paidMicro, discovery, selfDealing) => {
        const s = splitRevenue({ paidMicro, discovery, selfDealing });
        expect(s.contributorMicro + s.platformMicro).toBe(paidMicro);
        expect(s.grossMicro).toBe(paidMicro);
        expect(Number.isInteger(s.contributorMicro) && s.contributorMicro >= 0 && s.platformMicro >= 0).toBe(true);
      }),
    );
  });

  it('the contributor share is the floor of its percentage, never more', () => {
    fc.assert(
      fc.property(paid, fc.boolean(), (paidMicro, discovery) => {
        const pct = discovery ? CONTRIBUTOR_PERCENT.discovery : CONTRIBUTOR_PERCENT.direct;
        const { contributorMicro } = splitRevenue({ paidMicro, discovery, selfDealing: false });
        expect(contributorMicro * 100).toBeLessThanOrEqual(paidMicro * pct);
        expect((contributorMicro + 1) * 100).toBeGreaterThan(paidMicro * pct);
      }),
    );
  });

  it('discovery never pays the contributor more than a direct unlock', () => {
    fc.assert(
      fc.property(paid, (paidMicro) => {
        const direct = splitRevenue({ paidMicro, discovery: false, selfDealing: false });
        const discovery = splitRevenue({ paidMicro, discovery: true, selfDealing: false });
        expect(discovery.contributorMicro).toBeLessThanOrEqual(direct.contributorMicro);
      }),
    );
  });

  it('self-dealing zeroes the contributor share and leaves the payment with the platform', () => {
    fc.assert(
      fc.property(paid, fc.boolean(), (paidMicro, discovery) => {
        expect(splitRevenue({ paidMicro, discovery, selfDealing: true })).toMatchObject({
          contributorMicro: 0,
          platformMicro: paidMicro,
        });
      }),
    );
  });

  it('refuses amounts that are not non-negative integers', () => {
    for (const bad of [-1, 0.5, Number.NaN, Number.MAX_SAFE_INTEGER + 2]) {
      expect(() => splitRevenue({ paidMicro: bad, discovery: false, selfDealing: false })).toThrow(RangeError);
    }
  });
});
