import { describe, expect, it } from 'vitest';
import { withoutScopeAdjectives } from '../src/domain/scope-words.js';

describe('withoutScopeAdjectives', () => {
  it('drops a language or nationality word written before the thing it qualifies', () => {
    expect(withoutScopeAdjectives('British English voice for narration')).toBe('voice for narration');
    expect(withoutScopeAdjectives('read it aloud in a British female voice')).toBe('read it aloud in a female voice');
    expect(withoutScopeAdjectives('japanese text to speech')).toBe('text to speech');
  });

  it('keeps one that is the object of the request or stands alone', () => {
    for (const kept of [
      'translate a paragraph from English to Spanish',
      'translate this into Portuguese',
      'learn English',
      'look up a UK company',
      'holidays in Germany this year',
    ])
      expect(withoutScopeAdjectives(kept)).toBe(kept);
  });

  it('keeps the request when nothing else would be left', () => {
    expect(withoutScopeAdjectives('English Spanish')).toBe('English Spanish');
  });

  // Runs four times the longest request: linear, each takes milliseconds; quadratic, tens of seconds. The bound is
  // that gap, not a speed.
  it('reads a hostile run in linear time', () => {
    const runs = ['English '.repeat(20_000), 'british '.repeat(20_000), 'a'.repeat(160_000), ' '.repeat(160_000)];
    for (const run of runs) {
      const started = performance.now();
      withoutScopeAdjectives(run);
      expect(performance.now() - started).toBeLessThan(2_000);
    }
  });
});
