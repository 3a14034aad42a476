import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../src/catalog/load.js';

const bench = (file: string) => fileURLToPath(new URL(`../../../bench/eval/${file}`, import.meta.url));

describe('the tool-retrieval set (bench/tool-retrieval.js)', () => {
  const catalog = loadCatalog(bench('docker-tools.json'));
  const ids = new Set(catalog.map((s) => s.id));
  const { queries } = JSON.parse(fs.readFileSync(bench('docker-tools-requests.json'), 'utf8')) as {
    queries: Array<{ id: string; split: string; tool: string; query: string; relevant: Record<string, number> }>;
  };

  it('is an operator catalog of single tools the server loads', () => {
    expect(catalog.length).toBeGreaterThan(700);
    expect(catalog.every((s) => s.tools === undefined && s.description !== '')).toBe(true);
  });

  it('labels only ids of the catalog, the sampled tool at grade 2, odd requests dev and even test', () => {
    expect(new Set(queries.map((q) => q.id)).size).toBe(queries.length);
    for (const q of queries) {
      expect(Object.keys(q.relevant).filter((id) => !ids.has(id))).toEqual([]);
      expect(q.relevant[q.tool]).toBe(2);
      expect(Object.values(q.relevant).every((g) => g === 1 || g === 2)).toBe(true);
      expect(q.split).toBe(Number(q.id.slice(1)) % 2 === 1 ? 'dev' : 'test');
    }
  });
});
