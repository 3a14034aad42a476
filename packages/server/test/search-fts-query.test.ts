import { describe, expect, it } from 'vitest';
import { MAX_QUERY_TERMS, queryTerms } from '../src/domain/query-terms.js';
import {
  buildMatchExpression,
  COMMON_TERM_MIN_ROWS,
  commonTermCutoff,
  rankingTerms,
  selectiveMatchExpression,
} from '../src/store/fts-query.js';

describe('FTS query builder', () => {
  it('quotes each distinct term and ORs them', () => {
    expect(buildMatchExpression('Send an EMAIL, send it today')).toBe('"send" OR "email" OR "today"');
  });

  it('counts a term common above COMMON_TERM_SHARE of the rows, and never at COMMON_TERM_MIN_ROWS rows or fewer', () => {
    expect(commonTermCutoff(20_000)).toBe(500);
    expect(commonTermCutoff(100_000)).toBe(2_500);
    expect(commonTermCutoff(2_436)).toBe(COMMON_TERM_MIN_ROWS);
    expect(commonTermCutoff(0)).toBe(COMMON_TERM_MIN_ROWS);
  });

  it('drops stopwords unless nothing else is left', () => {
    expect(queryTerms('I want to get the weather')).toEqual(['weather']);
    expect(queryTerms('the and of')).toEqual(['the', 'and', 'of']);
  });

  it('drops quantifiers a request asks with, which records hold only as filler ("plus much more")', () => {
    expect(queryTerms('how many calories and how much sugar')).toEqual(['calories', 'sugar']);
  });

  it("keeps a request's accents for the store's index, which folds only a Latin letter's as it stores its records", () => {
    expect(queryTerms('Pokémon base stats')).toEqual(['pokémon', 'base', 'stats']);
    expect(queryTerms('йод')).toEqual(['йод']);
  });

  it('drops the agent client a request names as its context, but keeps it when it is the whole request', () => {
    expect(queryTerms('connect Claude to my Notion workspace')).toEqual(['notion', 'workspace']);
    expect(queryTerms('let Cursor run SQL against Supabase')).toEqual(['run', 'sql', 'against', 'supabase']);
    expect(queryTerms('claude')).toEqual(['claude']);
  });

  it('drops the filler of a tool-need sentence ("the best way", "a tool that can", "automatically")', () => {
    expect(queryTerms('what is the best way to shorten links')).toEqual(['shorten', 'links']);
    expect(queryTerms('I need a tool that can automatically resize images')).toEqual(['resize', 'images']);
  });

  it('drops the requester after my / our ("give my agent access to arxiv"), not an agent asked for', () => {
    expect(queryTerms('I want my agent to search arxiv')).toEqual(['search', 'arxiv']);
    expect(queryTerms('give our assistants a calendar')).toEqual(['calendar']);
    expect(queryTerms('an agent framework')).toEqual(['agent', 'framework']);
  });

  it.each([
    ['"', null],
    ['*', null],
    ['-', null],
    ['(((', null],
    ['🚀📧', null],
    ['', null],
    ['NEAR(', '"near"'],
    ['AND', '"and"'],
    ['email AND OR NOT', '"email"'],
    ['NOT', '"not"'],
    ['name:email^2*', '"name" OR "email" OR "2"'],
    ['"unbalanced email', '"unbalanced" OR "email"'],
    ['café 東京 emoji🚀', '"café" OR "東京" OR "emoji"'],
  ])('%j -> %j (FTS operators become plain text)', (input, expected) => {
    expect(buildMatchExpression(input)).toBe(expected);
  });

  it('bounds long input: at most MAX_QUERY_TERMS terms of at most 64 characters', () => {
    const long = Array.from({ length: 500 }, (_, i) => `w${i}`).join(' ');
    expect(queryTerms(long)).toHaveLength(MAX_QUERY_TERMS);
    const [one] = queryTerms('x'.repeat(2000));
    expect(one).toHaveLength(64);
  });

  it('lets terms in more than 2.5% of the rows (and over 500) rank but not match, while rarer terms remain', () => {
    expect(selectiveMatchExpression(['data', 'weather'], [5000, 20], 20_000)).toBe(
      '("weather") AND ("data" OR "weather")',
    );
    expect(selectiveMatchExpression(['data', 'api'], [5000, 3000], 20_000)).toBe('"data" OR "api"');
    expect(selectiveMatchExpression(['email', 'weather'], [500, 20], 20_000)).toBe('"email" OR "weather"');
    expect(selectiveMatchExpression(['email', 'weather'], [501, 20], 20_000)).toBe(
      '("weather") AND ("email" OR "weather")',
    );
    expect(selectiveMatchExpression(['data', 'weather'], [600, 20], 40_000)).toBe('"data" OR "weather"');
    expect(selectiveMatchExpression(['data', 'weather'], [500, 20], 1000)).toBe('"data" OR "weather"');
    expect(selectiveMatchExpression([], [], 1000)).toBeNull();
  });

  it('ranks with the selecting terms and those in fewer than half the rows (BM25 gives the rest its floor IDF)', () => {
    expect(rankingTerms(['cache', 'zeppelin', 'steady'], [1200, 3, 545], 1200, ['zeppelin'])).toEqual([
      'zeppelin',
      'steady',
    ]);
    expect(rankingTerms(['cache', 'warmup'], [1200, 600], 1200, ['warmup', 'cache'])).toEqual(['cache', 'warmup']);
    expect(rankingTerms(['a', 'b'], [599, 600], 1200, ['a'])).toEqual(['a']);
  });
});
