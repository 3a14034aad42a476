import { describe, expect, it } from 'vitest';
import { hasUnspacedScript, jaccard, normalizeForHash, shingles, words } from '../src/similarity.js';

describe('normalizeForHash', () => {
  it('folds case, whitespace, NFKC forms, typographic punctuation and invisible characters', () => {
    expect(normalizeForHash('  Hello\t\nWORLD  ')).toBe('hello world');
    expect(normalizeForHash('ﬁle １２３')).toBe('file 123'); // ligature and full-width digits
    expect(normalizeForHash('it\u2019s \u201cquoted\u201d \u2014 done\u2026')).toBe('it\'s "quoted" - done...');
    expect(normalizeForHash('pass\u200bword\u202e\u{E0041}')).toBe('password');
  });
});

describe('shingles', () => {
  it('makes word 3-shingles after normalisation; punctuation separates words', () => {
    expect([...shingles('The quick, brown fox: jumps!')]).toEqual([
      'the quick brown',
      'quick brown fox',
      'brown fox jumps',
    ]);
    expect(words('Set `NODE_OPTIONS=--max-old-space-size=4096`')).toEqual([
      'set',
      'node_options',
      'max',
      'old',
      'space',
      'size',
      '4096',
    ]);
  });

  it('keeps non-Latin words and treats a short text as one shingle; empty text is the empty set', () => {
    expect([...shingles('Überprüfe die Größe', 3)]).toEqual(['überprüfe die größe']);
    expect([...shingles('two words')]).toEqual(['two words']);
    expect(shingles('  ...  ').size).toBe(0);
    expect([...shingles('a b c d', 2)]).toEqual(['a b', 'b c', 'c d']);
    expect(() => shingles('x', 0)).toThrow(RangeError);
  });
});

describe('words in scripts written without spaces', () => {
  it('makes each letter of Chinese, Japanese, Thai, Lao, Khmer and Myanmar a word, with its marks', () => {
    expect(words('APIの認証は、use 日本語api ok')).toEqual([
      'api',
      'の',
      '認',
      '証',
      'は',
      'use',
      '日',
      '本',
      '語',
      'api',
      'ok',
    ]);
    expect(words('数据库连接')).toEqual(['数', '据', '库', '连', '接']);
    expect(words('ภาษาไทย')).toEqual(['ภ', 'า', 'ษ', 'า', 'ไ', 'ท', 'ย']);
    expect(words('မြန်မာ')).toEqual(['မြ', 'န်', 'မာ']);
  });
  it('leaves spaced scripts (Korean, Cyrillic, Greek, Latin with accents) as runs', () => {
    expect(words('한국어 텍스트 Проверка Ελληνικά größe')).toEqual([
      '한국어',
      '텍스트',
      'проверка',
      'ελληνικά',
      'größe',
    ]);
    expect(hasUnspacedScript('한국어 Проверка größe 123')).toBe(false);
    expect(hasUnspacedScript('see 日本')).toBe(true);
    expect(hasUnspacedScript('ไทย')).toBe(true);
  });
  it('gives a copy that changes a character per clause most of its shingles, and another text few', () => {
    const a = '本番でデータベースの接続が切れる。プールのタイムアウトを三十秒に短くした。再試行は三回までにした。';
    const b = '本番でデータベースの接続が切れた。プールのタイムアウトを二十秒に短くした。再試行は五回までにした。';
    const other = 'ビルドが遅いときはキャッシュの場所を確かめる。ロックファイルのハッシュをキーにして保存する。';
    expect(jaccard(shingles(a), shingles(b))).toBeGreaterThan(0.6);
    expect(jaccard(shingles(a), shingles(other))).toBeLessThan(0.1);
  });
});

describe('jaccard', () => {
  it('is |A∩B| / |A∪B|, symmetric, 1 for two empty sets and 0 for disjoint ones', () => {
    const a = new Set(['x', 'y', 'z']);
    const b = new Set(['y', 'z', 'w', 'v']);
    expect(jaccard(a, b)).toBeCloseTo(2 / 5, 12);
    expect(jaccard(b, a)).toBeCloseTo(2 / 5, 12);
    expect(jaccard(new Set(), new Set())).toBe(1);
    expect(jaccard(a, new Set())).toBe(0);
    expect(jaccard(a, new Set(['q']))).toBe(0);
    expect(jaccard(a, new Set(a))).toBe(1);
  });
});
