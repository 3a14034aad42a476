import { describe, expect, it } from 'vitest';
import { throughputDocs, transcriptDocs } from '../../../bench/scrub/texts.js';
import { seededRandom } from '../../../test/support/random.js';
import { leadingLiterals, literalAlternation, literalPrefixes } from '../src/regex-planner.js';
import { ALL_RULES, randomTexts } from './reference.js';

describe('literal prefixes', () => {
  it('reads the literals a match must start with, after a leading lookbehind', () => {
    expect(literalPrefixes('(?<![a-z])(?:ab|cd)_[a-z]{4}')).toEqual(['ab_', 'cd_']);
    expect(literalPrefixes('do[opr]_v1_[a-f]{2}')).toEqual(['doo_v1_', 'dop_v1_', 'dor_v1_']);
    expect(literalPrefixes('(?:glc_[A-Z]{3}|glsa_\\d)')).toEqual(['glc_', 'glsa_']);
    expect(literalPrefixes('ya29\\.[A-Z]+')).toEqual(['ya29.']);
  });

  it('stops before anything optional and gives up on what it cannot bound', () => {
    expect(literalPrefixes('sk-(?:proj-)?[a-z]{20}')).toEqual(['sk-']);
    expect(literalPrefixes('abc?d')).toEqual(['ab']);
    expect(literalPrefixes('(?:Apt\\.?|Unit)\\s\\d')).toEqual(['Apt', 'Unit']);
    expect(literalPrefixes('(?:pass(?:word|wd)?|_key)[a-z]')).toEqual(['pass', '_key']); // nested groups end a head
    expect(literalPrefixes('abc\\d|xyz')).toBeUndefined(); // top-level alternation
    expect(literalPrefixes('[MNO][a-z]{20}')).toBeUndefined(); // one-character prefixes
    expect(literalPrefixes('\\d{8}:AA')).toBeUndefined();
  });
});

describe('literal alternation', () => {
  it('factors common prefixes and matches what the flat alternation matches', () => {
    const literals = ['sk-', 'secret_', 'SG.', 'hvs.', 'hvb.', 'AKIA', 'ASIA', 'https://', 'x'];
    expect(literalAlternation(['sk-', 'secret_', 'ab'])).toBe('s(?:k-|ecret_)|ab');
    const text = 'a sk- secret_SG.x hvs.hvb.hvx AKIASIA https:// https:/ s secret';
    const flat = new RegExp(literals.map((l) => l.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|'), 'g');
    const factored = new RegExp(literalAlternation(literals), 'g');
    expect([...text.matchAll(factored)].map((m) => [m.index, m[0]])).toEqual(
      [...text.matchAll(flat)].map((m) => [m.index, m[0]]),
    );
  });

  it('matches caseless literals in any case and the others in their own', () => {
    const source = literalAlternation(['sk', 'SG.', 'key'], (l) => l !== 'SG.');
    expect(source).toBe('[sS][kK]|SG\\.|[kK][eE][yY]');
    const re = new RegExp(source, 'g');
    expect([...'Sk sK sg. SG. KEY'.matchAll(re)].map((m) => m[0])).toEqual(['Sk', 'sK', 'SG.', 'KEY']);
  });

  it('matches what the flat alternation matches, for random prefix-free literal sets in either case', () => {
    const random = seededRandom(21);
    const pick = (s: string) => s[random() % s.length];
    const escapeLiteral = (l: string) => l.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    for (let round = 0; round < 300; round++) {
      const literals: string[] = [];
      for (let i = 0; i < 1 + (random() % 12); i++) {
        const literal = Array.from({ length: 1 + (random() % 4) }, () => pick('abAB_.-')).join('');
        // Prefix-free in any case, as the planner keeps its anchor literals.
        const lower = literal.toLowerCase();
        const overlaps = (l: string) => l.toLowerCase().startsWith(lower) || lower.startsWith(l.toLowerCase());
        if (!literals.some(overlaps)) literals.push(literal);
      }
      const caseless = new Set(literals.filter(() => random() % 2 === 0));
      const anyCase = (l: string) =>
        [...l].map((c) => (/[a-z]/i.test(c) ? `[${c.toLowerCase()}${c.toUpperCase()}]` : escapeLiteral(c)));
      const flat = literals.map((l) => (caseless.has(l) ? anyCase(l).join('') : escapeLiteral(l))).join('|');
      const text = Array.from({ length: 200 }, () => pick('abAB_.- x')).join('');
      const factored = new RegExp(
        literalAlternation(literals, (l) => caseless.has(l)),
        'g',
      );
      const reference = new RegExp(flat, 'g');
      const matches = (re: RegExp) => [...text.matchAll(re)].map((m) => [m.index, m[0]]);
      expect(matches(factored)).toEqual(matches(reference));
    }
  });
});

describe('leading literals of the scrubber rules', () => {
  const planned = ALL_RULES.filter((rule) => leadingLiterals(rule.pattern.source));
  // Texts holding many matches: the bench texts, and random mixes of every literal the rules start with.
  const literals = planned.flatMap((rule) => leadingLiterals(rule.pattern.source) as string[]);
  const texts = [
    throughputDocs()[0].slice(0, 200_000),
    transcriptDocs()[0].slice(0, 200_000),
    ...randomTexts(3, [...literals, ...literals.map((l) => l.toUpperCase()), ...'aZ09-_ \n:='], 20, 400),
  ];

  it('are read from most rules', () => {
    expect(planned.length).toBeGreaterThan(ALL_RULES.length / 2);
  });

  it('start every match of their rule (the planner tries a rule only where one of them is)', () => {
    let matches = 0;
    for (const rule of planned) {
      const starts = leadingLiterals(rule.pattern.source) as string[];
      const fold = (s: string) => (rule.pattern.ignoreCase ? s.toLowerCase() : s);
      for (const text of texts) {
        for (const m of text.matchAll(rule.pattern)) {
          matches++;
          const here = fold(text.slice(m.index, m.index + 256));
          const where = `${rule.type} ${rule.pattern.source} at ${here}`;
          expect(
            starts.some((l) => here.startsWith(fold(l))),
            where,
          ).toBe(true);
        }
      }
    }
    expect(matches).toBeGreaterThan(500);
  });
});
