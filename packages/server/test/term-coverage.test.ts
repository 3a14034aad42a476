import { describe, expect, it } from 'vitest';
import { MAX_QUERY_TERMS, queryTerms } from '../src/domain/query-terms.js';
import { lightStem, termCoverage, termStems } from '../src/domain/term-coverage.js';

describe('lightStem', () => {
  it('drops the first listed suffix that leaves three letters or more', () => {
    expect(lightStem('geocoding')).toBe('geocod');
    expect(lightStem('geocode')).toBe('geocod');
    expect(lightStem('currencies')).toBe('currenc');
    expect(lightStem('currency')).toBe('currenc');
    expect(lightStem('files')).toBe('fil');
    expect(lightStem('file')).toBe('fil');
    expect(lightStem('translation')).toBe('translat');
    expect(lightStem('translated')).toBe('translat');
    expect(lightStem('translate')).toBe('translat');
  });
  it('keeps short words whole', () => {
    expect(lightStem('ids')).toBe('ids');
    expect(lightStem('pdf')).toBe('pdf');
    expect(lightStem('use')).toBe('use');
    expect(lightStem('')).toBe('');
  });
});

describe('termStems', () => {
  it('stems and deduplicates', () => {
    expect(termStems(['photos', 'photo', 'kitten'])).toEqual(['photo', 'kitten']);
    expect(termCoverage(termStems(['pokémon', 'types']), ['PokeAPI', 'Pokemon types and stats'])).toBe(1);
    expect(termStems([])).toEqual([]);
  });
});

describe('termCoverage', () => {
  const stems = termStems(queryTerms('show me some kitten photos'));
  it('is the share of the stems held by any of the texts, in any inflection', () => {
    expect(stems).toEqual(['kitten', 'photo']);
    expect(termCoverage(stems, ['Google Photos', 'Store and share your pictures'])).toBe(0.5);
    expect(termCoverage(stems, ['Cats', 'Random kittens', 'photo, animals'])).toBe(1);
    expect(termCoverage(stems, ['Weather', 'Forecasts by city'])).toBe(0);
  });
  it('matches whole words only, case and width folded', () => {
    expect(termCoverage(['cat'], ['concatenate'])).toBe(0);
    expect(termCoverage(['cat'], ['ＣＡＴＳ'])).toBe(1);
  });
  it('is 0 without stems', () => {
    expect(termCoverage([], ['anything'])).toBe(0);
  });
});

describe('queryTerms', () => {
  it('drops stopwords unless nothing else is left, and bounds the count', () => {
    expect(queryTerms('show me some kitten photos')).toEqual(['kitten', 'photos']);
    expect(queryTerms('what is it')).toEqual(['what', 'is', 'it']);
    expect(queryTerms(Array.from({ length: 40 }, (_, i) => `w${i}`).join(' '))).toHaveLength(MAX_QUERY_TERMS);
  });
});
