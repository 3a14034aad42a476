import { describe, expect, it } from 'vitest';
import { screenContentSensitivity } from '../src/domain/screens/content-sensitivity.js';
import { SCREEN_TARGETS, screenMetrics } from '../src/domain/screens/index.js';
import { loadScreenCorpus } from './screens-corpus.js';

describe('screenContentSensitivity', () => {
  it('meets its recall and false-positive targets on the labelled corpus', () => {
    const items = loadScreenCorpus('content-sensitivity');
    expect(items.filter((i) => i.flagged).length).toBeGreaterThanOrEqual(30);
    expect(items.filter((i) => !i.flagged).length).toBeGreaterThanOrEqual(30);
    const m = screenMetrics(items, screenContentSensitivity);
    const target = SCREEN_TARGETS['content-sensitivity']!;
    expect(m.recall, JSON.stringify(m.misses)).toBeGreaterThanOrEqual(target.recall);
    expect(m.falsePositiveRate, JSON.stringify(m.falsePositives)).toBeLessThanOrEqual(target.falsePositiveRate);
  });

  it.each([
    ['Employee Sarah Kim was diagnosed with cancer.', 'health_about_person'],
    ['My brother is on medication for depression.', 'health_about_person'],
    ['Mr. Stone was arrested on Friday.', 'legal_about_person'],
    ["Jason Miller's divorce papers were attached.", 'legal_about_person'],
    ['Her salary and credit score leaked.', 'financial_about_person'],
    ['The SSN of customer Ana Lima was logged.', 'identity_documents_about_person'],
    ['A 14-year-old signed up with her real name.', 'minors'],
    ["The children's home addresses were exported.", 'minors'],
    ['He threatened to kill his boss.', 'violence'],
    ['Someone asked how to make a bomb.', 'violence'],
    ['Olivia was out for weeks after a heart attack.', 'health_about_person'],
    ['Kevin in accounting is behind on child support.', 'financial_about_person'],
    ['He plans to shoot up his workplace.', 'violence'],
  ])('%j → %s', (text, finding) => {
    const r = screenContentSensitivity(text);
    expect(r.flagged).toBe(true);
    expect(r.findings).toContain(finding);
  });

  it('needs the topic and the person in one sentence or two adjacent ones', () => {
    expect(screenContentSensitivity('My colleague fixed the build. She was later diagnosed with cancer.').flagged).toBe(
      true,
    );
    const apart = 'My colleague fixed the build. The cache was cold. The queue drained. Disease models use SIR.';
    expect(screenContentSensitivity(apart).flagged).toBe(false);
  });

  it.each([
    'kill -9 the child process after SIGTERM times out.',
    'The liveness probe on /healthz killed slow pods.',
    'The legal team approved the Apache-2.0 NOTICE file.',
    'Technical debt: the session table lacks an index.',
    'A 5-year-old codebase needs characterisation tests.',
    'He diagnosed the leak with heap snapshots.',
    'The torture test nests arrays 10,000 deep.',
    'Use a FreeBSD jail per build.',
    'Sam.run() raised an exception after the stroke of midnight rollover.',
  ])('leaves technical text alone: %j', (text) => {
    expect(screenContentSensitivity(text)).toEqual({ flagged: false, findings: [] });
  });

  it('lists findings once each, in pattern order', () => {
    const r = screenContentSensitivity(
      'He threatened to kill his boss. Her salary was cut. She was diagnosed with cancer.',
    );
    expect(r.findings).toEqual(['health_about_person', 'financial_about_person', 'violence']);
  });
});
