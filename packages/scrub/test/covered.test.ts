import { describe, expect, it } from 'vitest';
import { Covered } from '../src/covered.js';
import { redact } from '../src/redact.js';
import type { Finding } from '../src/types.js';

const TYPES = ['secret_assignment', 'high_entropy_secret', 'bearer_token', 'github_token', 'email', 'private_key'];

/** A deterministic pseudo-random generator (xorshift), so a failure can be replayed. */
function random(seed: number): () => number {
  let x = seed;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

describe('Covered', () => {
  it('passes over a finding inside an earlier one that starts with it, if that one ranks as high', () => {
    const covered = new Covered([
      { type: 'secret_assignment', start: 10, end: 30 },
      { type: 'github_token', start: 40, end: 60 },
    ]);
    expect(covered.covers('high_entropy_secret', 10, 30)).toBe(true);
    expect(covered.covers('high_entropy_secret', 10, 31)).toBe(false);
    expect(covered.covers('high_entropy_secret', 11, 20)).toBe(false); // only starts are looked up
    expect(covered.covers('openai_api_key', 10, 20)).toBe(false); // a specific type outranks a generic one
    expect(covered.covers('openai_api_key', 40, 60)).toBe(true);
    expect(covered.covers('secret_assignment', 40, 50)).toBe(true);
  });

  it('never changes the redaction: findings it passes over leave the same text, report and spans', () => {
    const text = 'x'.repeat(120);
    const next = random(7);
    for (let round = 0; round < 2000; round++) {
      const all: Finding[] = [];
      for (let i = 0; i < 12; i++) {
        const start = Math.floor(next() * 20) * 5; // shared starts are the point
        const end = start + 1 + Math.floor(next() * 25);
        all.push({ type: TYPES[Math.floor(next() * TYPES.length)], start, end });
      }
      const covered = new Covered();
      const kept: Finding[] = [];
      for (const f of all) {
        if (covered.covers(f.type, f.start, f.end)) continue;
        kept.push(f);
        covered.add([f]);
      }
      expect(redact(text, kept)).toEqual(redact(text, all));
    }
  });
});
