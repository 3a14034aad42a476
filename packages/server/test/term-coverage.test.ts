import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../src/catalog/load.js';
import { textWords } from '../src/domain/query-expansion.js';
import { MAX_QUERY_TERMS, queryTerms } from '../src/domain/query-terms.js';
import { lightStem, namesake, recordTexts, termCoverage, termStems } from '../src/domain/term-coverage.js';

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
  it('is, over every record of the bundled catalog, the share a stem set of all its texts gives', () => {
    // The definition, stemming every word; termCoverage stems only the words that can stem to a wanted stem.
    const byDefinition = (stems: readonly string[], texts: readonly string[]) => {
      const held = new Set(texts.flatMap((t) => textWords(t).map(lightStem)));
      return stems.filter((s) => held.has(s)).length / stems.length;
    };
    const records = loadCatalog();
    const vocabulary = [...new Set(records.flatMap((r) => textWords(r.description)))];
    records.forEach((r, i) => {
      const texts = recordTexts(r);
      // Stems of the record's own words (held), of others' (mostly not), short ones and words sharing a beginning.
      const own = textWords(`${r.name} ${r.description}`).filter((_, j) => j % 3 === i % 3);
      const words = [...own, vocabulary[(i * 7919) % vocabulary.length]!, 'ab', 'x', `${own[0] ?? 'con'}z`];
      const stems = termStems(words);
      expect(termCoverage(stems, texts)).toBe(byDefinition(stems, texts));
    });
  });
});

describe('queryTerms', () => {
  it('drops stopwords unless nothing else is left, and bounds the count', () => {
    expect(queryTerms('show me some kitten photos')).toEqual(['kitten', 'photos']);
    expect(queryTerms('what is it')).toEqual(['what', 'is', 'it']);
    expect(queryTerms(Array.from({ length: 40 }, (_, i) => `w${i}`).join(' '))).toHaveLength(MAX_QUERY_TERMS);
  });
});

describe('namesake', () => {
  const record = (name: string, description: string, tags: string[] = [], id = name.toLowerCase()) => ({
    name,
    id,
    description,
    tags,
  });
  const stems = termStems(['driving', 'directions', 'cities']);

  it('is a record whose name holds a request word and whose description and tags hold none', () => {
    expect(namesake(stems, [], record('Google Drive', 'File Sharing and Storage'))).toBe(true);
    expect(namesake(stems, [], record('Drive', 'Storage', [], 'google-drive'))).toBe(true);
  });
  it('is not one whose description or tags hold a request word too', () => {
    expect(namesake(stems, [], record('Drive Router', 'Turn-by-turn directions'))).toBe(false);
    expect(namesake(stems, [], record('Drive Router', 'Routing', ['cities']))).toBe(false);
  });
  it('is not one whose description holds a word the vocabulary added', () => {
    expect(namesake(stems, termStems(['routing']), record('Drive Router', 'Routing API'))).toBe(false);
  });
  it('is not one whose name holds no request word, nor any record for a request without words', () => {
    expect(namesake(stems, [], record('Mapbox', 'Maps'))).toBe(false);
    expect(namesake([], [], record('Google Drive', 'File Sharing'))).toBe(false);
  });
});
