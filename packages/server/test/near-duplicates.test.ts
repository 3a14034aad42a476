import { describe, expect, it } from 'vitest';
import { groupSiblings, productKey, siblingsBelow } from '../src/domain/near-duplicates.js';

describe('productKey', () => {
  it('keeps the words that name the product', () => {
    expect(productKey('mcp-server-redis')).toBe('redis');
    expect(productKey('redis-mcp-server')).toBe('redis');
    expect(productKey('notion-remote')).toBe('notion');
    expect(productKey('mcp-notion-server')).toBe('notion');
    expect(productKey('mcp-bigquery-server')).toBe('bigquery');
    expect(productKey('code-sandbox-mcp')).toBe('code sandbox');
  });
  it('is undefined when only packaging words are left', () => {
    expect(productKey('mcp-server-python')).toBeUndefined();
    expect(productKey('remote-mcp')).toBeUndefined();
    expect(productKey('')).toBeUndefined();
  });
});

describe('groupSiblings', () => {
  const key = (id: string) => (id.startsWith('api-') ? undefined : productKey(id));
  const hits = (...pairs: Array<[string, number]>) => pairs.map(([id, score]) => ({ id, score }));

  it('places a sibling of a leader right below it', () => {
    const out = groupSiblings(
      hits(['notion-mcp', 0.5], ['webflow-remote', 0.4], ['api-linkpreview', 0.35], ['mcp-notion-server', 0.3]),
      key,
      10,
      0.001,
    );
    expect(out.map((h) => h.id)).toEqual(['notion-mcp', 'mcp-notion-server', 'webflow-remote', 'api-linkpreview']);
    expect(out[1]!.score).toBeCloseTo(0.499);
  });
  it('never lowers a sibling and keeps the order of everything else', () => {
    const input = hits(['mcp-redis', 0.5], ['redis-mcp-server', 0.49999], ['api-a', 0.4], ['api-b', 0.3]);
    const out = groupSiblings(input, key, 10, 0.001);
    expect(out).toEqual(input);
  });
  it('lifts siblings only of leaders among the first `leaders` hits', () => {
    const input = hits(['api-a', 0.5], ['api-b', 0.4], ['mcp-redis', 0.3], ['api-c', 0.2], ['redis-mcp-server', 0.1]);
    expect(groupSiblings(input, key, 2, 0.001).map((h) => h.id)).toEqual([
      'api-a',
      'api-b',
      'mcp-redis',
      'api-c',
      'redis-mcp-server',
    ]);
    expect(groupSiblings(input, key, 3, 0.001).map((h) => h.id)).toEqual([
      'api-a',
      'api-b',
      'mcp-redis',
      'redis-mcp-server',
      'api-c',
    ]);
  });
  it('leaves hits without a key alone and refuses a negative gap', () => {
    const input = hits(['api-redis', 0.5], ['api-x', 0.4], ['api-redis-2', 0.1]);
    expect(groupSiblings(input, key, 10, 0.001)).toEqual(input);
    expect(() => groupSiblings(input, key, 10, -1)).toThrow(RangeError);
  });
});

describe('siblingsBelow', () => {
  const ids = (...xs: string[]) => xs.map((id) => ({ id }));

  it('picks the hits from `from` up to `to` whose key one of the first `leaders` hits has', () => {
    const input = ids('notion-remote', 'api-a', 'api-b', 'mcp-notion-server', 'api-c', 'notion-mcp', 'linear-mcp');
    expect(siblingsBelow(input, productKey, { leaders: 2, from: 3, to: 7 }).map((h) => h.id)).toEqual([
      'mcp-notion-server',
      'notion-mcp',
    ]);
  });
  it('leaves hits before `from`, from `to` on, and those of later leaders or without a key', () => {
    const input = ids('api-a', 'notion-remote', 'mcp-notion-server', 'mcp-server', 'remote-mcp', 'notion-mcp');
    const key = (id: string) => (id.startsWith('api-') ? undefined : productKey(id));
    expect(siblingsBelow(input, key, { leaders: 1, from: 2, to: 6 })).toEqual([]);
    expect(siblingsBelow(input, key, { leaders: 2, from: 3, to: 5 })).toEqual([]);
    expect(siblingsBelow(input, key, { leaders: 2, from: 2, to: 6 }).map((h) => h.id)).toEqual([
      'mcp-notion-server',
      'notion-mcp',
    ]);
  });
  it('is empty when `to` is not past `from`', () => {
    expect(siblingsBelow(ids('notion-remote', 'notion-mcp'), productKey, { leaders: 1, from: 1, to: 1 })).toEqual([]);
  });
});
