import { describe, expect, it } from 'vitest';
import { withoutSubordinateClause } from '../src/domain/subordinate-clause.js';

describe('withoutSubordinateClause', () => {
  it('drops a clause that says when or why after the need', () => {
    expect(withoutSubordinateClause('validate an IBAN before sending a bank transfer')).toBe('validate an IBAN');
    expect(withoutSubordinateClause('autocomplete street addresses as users type in a checkout form')).toBe(
      'autocomplete street addresses',
    );
  });

  it('keeps the next sentence after the clause', () => {
    expect(withoutSubordinateClause('crime stats before we sign a lease. Which API covers London?')).toBe(
      'crime stats Which API covers London?',
    );
  });

  it('keeps a clause that holds the need itself', () => {
    for (const kept of ['alert me when my website goes down', 'notify me before my SSL certificate expires'])
      expect(withoutSubordinateClause(kept)).toBe(kept);
  });

  it('keeps a question that opens on when, and as before a format', () => {
    for (const kept of ['when does the next train arrive', 'save a web page as a PDF', 'use Redis as a cache'])
      expect(withoutSubordinateClause(kept)).toBe(kept);
  });

  // Runs four times the longest request: linear, each takes milliseconds; quadratic, tens of seconds. The bound is
  // that gap, not a speed (a loaded machine once took 102 ms under a 100 ms bound).
  it('reads a hostile run in linear time', () => {
    for (const run of ['before '.repeat(24_000), 'as we '.repeat(28_000), 'a'.repeat(160_000), '. '.repeat(80_000)]) {
      const started = performance.now();
      withoutSubordinateClause(run);
      expect(performance.now() - started).toBeLessThan(2_000);
    }
  });
});
