import { describe, expect, it } from 'vitest';
import { SCREEN_TARGETS, screenMetrics } from '../src/domain/screens/index.js';
import {
  TECHNICAL_DENSITY_MIN,
  screenProcessAdvice,
  softWords,
  technicalDensity,
} from '../src/domain/screens/process-advice.js';
import { loadScreenCorpus } from './screens-corpus.js';

describe('screenProcessAdvice', () => {
  it('meets its recall and false-positive targets on the labelled corpus', () => {
    const items = loadScreenCorpus('process-advice');
    expect(items.filter((i) => i.flagged).length).toBeGreaterThanOrEqual(30);
    expect(items.filter((i) => !i.flagged).length).toBeGreaterThanOrEqual(30);
    const m = screenMetrics(items, screenProcessAdvice);
    const target = SCREEN_TARGETS['process-advice']!;
    expect(m.recall, JSON.stringify(m.misses)).toBeGreaterThanOrEqual(target.recall);
    expect(m.falsePositiveRate, JSON.stringify(m.falsePositives)).toBeLessThanOrEqual(target.falsePositiveRate);
  });

  it('names the advice categories and the low technical content', () => {
    expect(screenProcessAdvice('Communicate with your team and stay positive; take regular breaks.')).toEqual({
      flagged: true,
      findings: ['communication', 'attitude', 'wellbeing', 'low_technical_content'],
    });
  });

  it('passes advice inside a technical learning, and flags two categories unless the text is very technical', () => {
    const technical =
      'Take regular backups of Vault: `vault operator raft snapshot save /backups/raft.snap` every 6 h via cron; ' +
      'restore with `vault operator raft snapshot restore -force`.';
    expect(technicalDensity(technical)).toBeGreaterThanOrEqual(3 * TECHNICAL_DENSITY_MIN);
    expect(screenProcessAdvice(technical).flagged).toBe(false);
    const mixed =
      'Stay calm and communicate with your team when `npm ci` fails with ERESOLVE after the upgrade to v9.1.0; ' +
      'a clear message in the channel helps everyone understand what is going on.';
    expect(technicalDensity(mixed)).toBeGreaterThanOrEqual(TECHNICAL_DENSITY_MIN);
    expect(technicalDensity(mixed)).toBeLessThan(3 * TECHNICAL_DENSITY_MIN);
    expect(screenProcessAdvice(mixed)).toEqual({ flagged: true, findings: ['communication', 'attitude'] });
  });

  it('flags text with no advice phrase but three soft words and little technical content', () => {
    expect(softWords('A good engineer knows when to rest. Be no hero; nobody wins.')).toEqual([
      'rest',
      'hero',
      'nobody',
    ]);
    expect(screenProcessAdvice('A good engineer knows when to rest. Be no hero; nobody wins.')).toEqual({
      flagged: true,
      findings: ['generic_advice', 'low_technical_content'],
    });
    expect(
      screenProcessAdvice('Talk to the Redis primary for WATCH; the team saw READONLY errors on replicas.'),
    ).toEqual({
      flagged: false,
      findings: [],
    });
  });

  it('does not flag technical text without advice phrases, however short', () => {
    expect(screenProcessAdvice('Set it to 5.')).toEqual({ flagged: false, findings: [] });
    expect(technicalDensity('')).toBe(0);
  });
});
