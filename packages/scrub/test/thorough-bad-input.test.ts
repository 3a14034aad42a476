import { describe, expect, it } from 'vitest';
import { scrub } from '../src/index.js';

// The thorough tier on hostile or odd input: it must finish (within the test's timeout; every pass is a regex with
// bounded repetition or a walk over the words with bounded look-back and look-ahead), not throw, and say in its
// report what it replaced. Its cost per KB is measured in bench/scrub.
const thorough = (text: string) => scrub(text, { tier: 'thorough' });

/** A seeded sequence, so every run reads the same text. */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
}

const FIRST = ['Ana', 'João', 'Marta', 'Lars', 'Priya', 'Wei', 'Agata', 'Kevin', 'Sofia', 'Omar'];
const LAST = ['Souza', 'Silva', 'Kowalski', 'Eriksen', 'Raman', 'Zhang', 'Abramova', 'Hughes', 'Rossi', 'Haddad'];

function names(n: number, rnd: () => number): string[] {
  return Array.from({ length: n }, () => `${FIRST[Math.floor(rnd() * 10)]} ${LAST[Math.floor(rnd() * 10)]}`);
}

describe('thorough tier on bad input', () => {
  it('a very long list of names, however separated', () => {
    const list = names(10_000, random(1));
    for (const sep of [', ', '\n', ' ']) {
      const r = thorough(list.join(sep));
      expect(r.text, JSON.stringify(sep)).not.toMatch(new RegExp([...FIRST, ...LAST].join('|')));
      expect(r.report.counts?.person).toBeGreaterThanOrEqual(10_000 * (sep === ' ' ? 0.9 : 1));
    }
  });

  it('1 MB of capitalised words on one line', () => {
    const rnd = random(2);
    const vocabulary = [...FIRST, ...LAST, 'Redis', 'Kafka', 'Street', 'The', 'Getting', 'Started', 'Szöllösy', 'Via'];
    const parts: string[] = [];
    for (let size = 0; size < 1_000_000; ) {
      const w = vocabulary[Math.floor(rnd() * vocabulary.length)];
      parts.push(w);
      size += w.length + 1;
    }
    const text = parts.join(' ');
    const r = thorough(text);
    expect(r.report.tier).toBe('thorough');
    expect(r.text.length).toBeGreaterThan(0);
    // What it replaced is what it counted.
    const placeholders = r.text.match(/\[(?:PERSON|ADDRESS)_\d+\]/g) ?? [];
    expect(placeholders.length).toBe((r.report.counts?.person ?? 0) + (r.report.counts?.street_address ?? 0));
  });

  it('names in Cyrillic, Greek, Arabic, Hebrew, Chinese and Korean', () => {
    const r = thorough('Агата Абрамова, Αθανασια Αβραμίδης, محمد, אביב כהן, 王伟宸 and 김민준 reviewed it.');
    expect(r.text).toBe('[PERSON_1], [PERSON_2], [PERSON_3], [PERSON_4], [PERSON_5] and [PERSON_6] reviewed it.');
    expect(r.report.counts).toEqual({ person: 6 });
  });

  it('names inside emails go with the email; inside URLs they are left, and the report says so', () => {
    const urls = 'https://github.com/ana-souza/dotfiles and https://acme.io/people/AnaSouza';
    const text = `mail ana.souza@acme.io or see ${urls}`;
    const r = thorough(text);
    expect(r.text).toBe(`mail [REDACTED:email] or see ${urls}`);
    expect(r.report.counts).toEqual({ email: 1 });
  });

  it('a transcript that is all one line, every shape repeated', () => {
    const rnd = random(3);
    const parts: string[] = [];
    for (let i = 0; i < 2_000; i++) {
      const [name] = names(1, rnd);
      parts.push(`From: ${name} <x${i}@acme.io> cc: J. Park, @ana Thanks, ${name} lives at ${i} Puruntie ${i % 90}`);
    }
    const text = JSON.stringify({ content: parts.join(' ') });
    const r = thorough(text);
    expect(r.text).not.toMatch(/Souza|Kowalski|Puruntie|@ana\b|J\. Park/);
    expect(r.report.counts?.email).toBe(2_000);
    expect(r.report.counts?.person).toBeGreaterThanOrEqual(4_000);
  });

  it('empty, whitespace and placeholder-only text', () => {
    for (const text of ['', ' ', '\n\n\n', '[PERSON_1] [ADDRESS_2] [REDACTED:email]']) {
      const r = thorough(text);
      expect(r.text).toBe(text);
      expect(r.report).toMatchObject({ clean: true, counts: {} });
    }
  });
});
