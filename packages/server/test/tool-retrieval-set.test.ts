import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../src/catalog/load.js';

const bench = (file: string) => fileURLToPath(new URL(`../../../bench/eval/${file}`, import.meta.url));

describe('the tool-retrieval set (bench/tool-retrieval.js)', () => {
  const catalog = loadCatalog(bench('docker-tools.json'));
  const ids = new Set(catalog.map((s) => s.id));
  type Requests = {
    heldOut?: boolean;
    queries: Array<{ id: string; split: string; tool: string; query: string; relevant: Record<string, number> }>;
  };
  const read = <T>(file: string) => JSON.parse(fs.readFileSync(bench(file), 'utf8')) as T;
  const { queries } = read<Requests>('docker-tools-requests.json');
  const heldOut = read<Requests>('docker-tools-requests-2.json');
  const sample = read<{ tools: string[] }>('docker-tools-sample-2.json').tools;
  const third = read<Requests>('docker-tools-requests-3.json');
  const thirdSample = read<{ tools: string[] }>('docker-tools-sample-3.json').tools;
  const server = new Map(catalog.map((s) => [s.id, s.connection.docs]));
  const mostPerServer = (tools: string[]) => {
    const perServer = new Map<string | undefined, number>();
    for (const id of tools) perServer.set(server.get(id), (perServer.get(server.get(id)) ?? 0) + 1);
    return Math.max(...perServer.values());
  };
  const wellLabelled = (q: Requests['queries'][number]) => {
    expect(Object.keys(q.relevant).filter((id) => !ids.has(id))).toEqual([]);
    expect(q.relevant[q.tool]).toBe(2);
    expect(Object.values(q.relevant).every((g) => g === 1 || g === 2)).toBe(true);
  };

  it('is an operator catalog of single tools the server loads', () => {
    expect(catalog.length).toBeGreaterThan(700);
    expect(catalog.every((s) => s.tools === undefined && s.description !== '')).toBe(true);
  });

  it("has the servers of those tools as an operator catalog the server loads, each tool in its server's tool list", () => {
    const servers = loadCatalog(bench('docker-servers.json'));
    const toolsOf = new Map(servers.map((s) => [s.id, s.tools ?? []]));
    expect(servers.every((s) => s.type === 'mcp_server' && (s.tools?.length ?? 0) > 0)).toBe(true);
    expect(servers.reduce((n, s) => n + s.tools!.length, 0)).toBe(catalog.length);
    for (const tool of catalog) {
      const owner = servers.find((s) => tool.id.startsWith(`${s.id}-`) && s.connection.docs === tool.connection.docs);
      expect(owner, tool.id).toBeDefined();
      expect(toolsOf.get(owner!.id)!.some((t) => t.name === tool.name && t.description === tool.description)).toBe(
        true,
      );
    }
  });

  it('labels only ids of the catalog, the sampled tool at grade 2, odd requests dev and even test', () => {
    expect(new Set(queries.map((q) => q.id)).size).toBe(queries.length);
    for (const q of queries) {
      wellLabelled(q);
      expect(q.split).toBe(Number(q.id.slice(1)) % 2 === 1 ? 'dev' : 'test');
    }
  });

  it('has a held-out set, all test, one request per tool of its committed sample (at most 6 per server)', () => {
    expect(heldOut.heldOut).toBe(true);
    expect(heldOut.queries.map((q) => q.tool)).toEqual(sample);
    expect(heldOut.queries.map((q) => q.id)).toEqual(sample.map((_, i) => `h${String(i + 1).padStart(3, '0')}`));
    expect(mostPerServer(sample)).toBeLessThanOrEqual(6);
    for (const q of heldOut.queries) {
      expect(q.split).toBe('test');
      wellLabelled(q);
    }
  });

  it('has a third set, all dev, on tools no earlier request sampled or labelled (at most 8 per server)', () => {
    expect(third.heldOut).toBeUndefined();
    expect(third.queries.map((q) => q.tool)).toEqual(thirdSample);
    expect(third.queries.map((q) => q.id)).toEqual(thirdSample.map((_, i) => `t${String(i + 1).padStart(3, '0')}`));
    expect(mostPerServer(thirdSample)).toBeLessThanOrEqual(8);
    const earlier = new Set([...queries, ...heldOut.queries].flatMap((q) => [q.tool, ...Object.keys(q.relevant)]));
    expect(thirdSample.filter((id) => earlier.has(id))).toEqual([]);
    for (const q of third.queries) {
      expect(q.split).toBe('dev');
      wellLabelled(q);
    }
  });
});
