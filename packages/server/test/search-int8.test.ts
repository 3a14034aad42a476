// The semantic index's scan: int8 quantisation, the WebAssembly kernel, top-k selection, and the
// pool of embedding workers. Only the last loads the model.
import { describe, expect, it } from 'vitest';
import { EmbedderClient, EmbedderPool } from '../src/search/embedder.js';
import { EMBEDDING_DIM, EMBEDDING_MODEL, normalize } from '../src/search/embedding-text.js';
import { Int8Index } from '../src/search/int8-index.js';
import { type QuantizedRows, quantizeInto } from '../src/domain/quantize.js';
import { topK } from '../src/search/top-k.js';
import { BUNDLED_VECTORS, readVectorsFile } from '../src/search/vector-file.js';

/** Deterministic pseudo-random numbers in [0, 1). */
function rng(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x / 2 ** 32;
  };
}
/** Quantised rows of unit vectors, as the semantic index hands them to the workers. */
function quantize(vectors: readonly Float32Array[], dim: number): QuantizedRows {
  const rows = { codes: new Int8Array(vectors.length * dim), scales: new Float32Array(vectors.length) };
  for (const [i, v] of vectors.entries()) rows.scales[i] = quantizeInto(v, rows.codes, i * dim);
  return rows;
}
const dot = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
};

describe('quantizeInto', () => {
  it('maps the largest component to ±127 and keeps every component within half a step', () => {
    const v = [0.5, -0.25, 0.1, 0, -0.5];
    const codes = new Int8Array(8);
    const scale = quantizeInto(v, codes, 2);
    expect(scale).toBeCloseTo(0.5 / 127, 12);
    expect([...codes]).toEqual([0, 0, 127, -63, 25, 0, -127, 0]);
    for (const [j, x] of v.entries())
      expect(Math.abs(codes[2 + j]! * scale - x)).toBeLessThanOrEqual(scale / 2 + 1e-12);
  });

  it('gives a zero vector zero codes and scale 1', () => {
    const codes = new Int8Array(3).fill(9);
    expect(quantizeInto([0, 0, 0], codes, 0)).toBe(1);
    expect([...codes]).toEqual([0, 0, 0]);
  });
});

describe('topK', () => {
  it('matches a full sort for every k, bound and filter, ties broken by row', () => {
    const next = rng(7);
    for (let trial = 0; trial < 200; trial++) {
      const rows = Math.floor(next() * 60);
      // Few distinct values, so ties are common.
      const scores = Array.from({ length: rows }, () => Math.round(next() * 8) / 8);
      const k = Math.floor(next() * 12);
      const min = next() < 0.5 ? -Infinity : next();
      const keep = next() < 0.5 ? undefined : (row: number) => row % 3 !== 0;
      const expected = scores
        .map((score, row) => ({ row, score }))
        .filter((s) => s.score >= min && (!keep || keep(s.row)))
        .sort((a, b) => b.score - a.score || a.row - b.row)
        .slice(0, k);
      expect(topK(rows, k, min, (r) => scores[r]!, keep)).toEqual(expected);
    }
  });

  it('skips NaN scores and returns nothing for k = 0', () => {
    expect(topK(3, 2, -Infinity, (r) => (r === 1 ? Number.NaN : r))).toEqual([
      { row: 2, score: 2 },
      { row: 0, score: 0 },
    ]);
    expect(topK(3, 0, -Infinity, (r) => r)).toEqual([]);
  });
});

describe('Int8Index', () => {
  // The real skill vectors of the bundled catalog; queries are skills' vectors with noise added.
  const shipped = [...readVectorsFile(BUNDLED_VECTORS, EMBEDDING_MODEL).values()];
  const ids = shipped.map((_, i) => `s${i}`);
  const rows = quantize(shipped, EMBEDDING_DIM);
  const next = rng(42);
  const queries = Array.from({ length: 40 }, (_, i) => {
    const base = shipped[(i * 53) % shipped.length]!;
    return normalize(base.map((x) => x + (next() - 0.5) * 0.08));
  });
  const exact = (q: Float32Array, k: number) =>
    shipped
      .map((v, row) => ({ id: ids[row]!, score: dot(q, v) }))
      .sort((a, b) => b.score - a.score)
      .slice(0, k);

  it('ranks like the float cosine over the bundled catalog: top 10 the same, scores within 0.01', () => {
    const index = new Int8Index(ids, rows, EMBEDDING_DIM);
    expect(index.size).toBe(shipped.length);
    let same = 0;
    for (const q of queries) {
      const got = index.search(q, 10, -1);
      const want = exact(q, 10);
      same += got.filter((g) => want.some((w) => w.id === g.id)).length;
      for (const g of got) expect(Math.abs(g.score - dot(q, shipped[Number(g.id.slice(1))]!))).toBeLessThan(0.01);
    }
    expect(same / (10 * queries.length)).toBeGreaterThanOrEqual(0.98);
  });

  it('keeps only rows at or above the minimum score and among the allowed ids', () => {
    const index = new Int8Index(ids, rows, EMBEDDING_DIM);
    const q = queries[0]!;
    const hits = index.search(q, 100, 0.5);
    expect(hits.every((h) => h.score >= 0.5)).toBe(true);
    const allowed = ['s7', 's300', 's1000', 'unknown-id'];
    expect(
      index
        .search(q, 10, -1, allowed)
        .map((h) => h.id)
        .sort(),
    ).toEqual(['s1000', 's300', 's7']);
  });

  it('scores listed rows as a full scan does, in the order listed, repeats included; on a coarse index too', () => {
    const q = queries[1]!;
    // Every row's score from an exact index's full scan, in the 32-bit floats scoreRows answers in.
    const scanned = new Map(
      new Int8Index(ids, rows, EMBEDDING_DIM).search(q, ids.length, -1).map((h) => [h.id, h.score]),
    );
    const all = ids.map((id) => Math.fround(scanned.get(id)!));
    for (const index of [new Int8Index(ids, rows, EMBEDDING_DIM), new Int8Index(ids, rows, EMBEDDING_DIM, 1000)]) {
      const listed = [7, 0, ids.length - 1, 300, 7, 1001];
      expect([...index.scoreRows(q, listed)]).toEqual(listed.map((row) => all[row]));
      expect(index.scoreRows(q, [])).toHaveLength(0);
      // A coarse search between two listed scorings leaves them alike.
      index.search(q, 10, -1);
      expect([...index.scoreRows(q, listed)]).toEqual(listed.map((row) => all[row]));
    }
    const one = normalize(new Float32Array(16).fill(1));
    const small = new Int8Index(['a'], quantize([one], 16), 16);
    expect(() => small.scoreRows(one, [0, 0])).toThrow(/2 rows listed of 1/);
  });

  it('with the coarse pass, scores exactly the rows nearest in sign bits: the same top 10 for most queries, ties to the earlier row, filters kept', () => {
    // Every vector twice (rows s<i>, then d<i>), so ties are everywhere; the coarse pass from 1,000 rows on.
    const twice = [...shipped, ...shipped];
    const twiceIds = [...ids, ...shipped.map((_, i) => `d${i}`)];
    const twiceRows = quantize(twice, EMBEDDING_DIM);
    const exactIndex = new Int8Index(twiceIds, twiceRows, EMBEDDING_DIM);
    const coarse = new Int8Index(twiceIds, twiceRows, EMBEDDING_DIM, 1000);
    let same = 0;
    for (const q of queries) {
      const want = exactIndex.search(q, 10, -1);
      const got = coarse.search(q, 10, -1);
      expect(got).toHaveLength(10);
      same += got.filter((g) => want.some((w) => w.id === g.id)).length;
      // A found row scores exactly as in the full scan, and of two equal rows the earlier comes first.
      for (const g of got) expect(g.score).toBe(want.find((w) => w.id === g.id)?.score ?? g.score);
      expect(got[0]!.id.startsWith('s')).toBe(true);
      for (const [i, g] of got.entries())
        if (g.id.startsWith('d')) expect(got.slice(0, i).some((h) => h.id === `s${g.id.slice(1)}`)).toBe(true);
    }
    expect(same / (10 * queries.length)).toBeGreaterThanOrEqual(0.9);
    // Fewer allowed rows than the pass keeps: all of them are scored, so the answer is exact.
    const allowed = twiceIds.filter((_, row) => row % 40 === 0);
    for (const q of queries.slice(0, 5))
      expect(coarse.search(q, 10, 0.1, allowed)).toEqual(exactIndex.search(q, 10, 0.1, allowed));
  });

  it('rejects vectors of the wrong length', () => {
    const unit = (dim: number) => normalize(new Float32Array(dim).fill(1));
    expect(() => new Int8Index(['a'], quantize([unit(24)], 24), 24)).toThrow(/multiple of 16/);
    expect(() => new Int8Index(['a', 'b'], quantize([unit(16)], 16), 16)).toThrow(/1 rows of 16 codes for 2 ids/);
    expect(() => new Int8Index(['a'], quantize([unit(16)], 16), 16).search(new Float32Array(32), 1, 0)).toThrow(
      /32 components/,
    );
  });
});

describe('EmbedderPool', () => {
  it('splits embedding across workers in order, searches on any of them, and outlives a dead worker', async () => {
    const workers: EmbedderClient[] = [];
    const pool = new EmbedderPool(2, () => {
      const w = new EmbedderClient();
      workers.push(w);
      return w;
    });
    try {
      await pool.init();
      const texts = [
        'send an email',
        'weather forecast for a city',
        'convert currencies',
        'translate text',
        'store files',
      ];
      const vectors = await pool.embed(texts);
      // Each text embedded alone by one worker gives the same vector as in the split batch.
      const alone = await workers[0]!.embed([texts[4]!]);
      expect(dot(vectors[4]!, alone[0]!)).toBeGreaterThan(0.999);
      expect(vectors).toHaveLength(5);

      expect(
        await pool.setIndex(['mail', 'weather', 'fx', 'translate', 'files'], quantize(vectors, EMBEDDING_DIM)),
      ).toBe(5);
      // More searches at once than one batch holds: each answers its own query.
      const asked = [
        'email a message',
        'is it going to rain',
        'exchange rate of the euro',
        'translate to german',
        'store my files',
      ];
      const answers = await Promise.all([...asked, ...asked].map((q) => pool.search(q, 1, 0)));
      expect(answers.map((a) => a.hits[0]!.id)).toEqual([
        'mail',
        'weather',
        'fx',
        'translate',
        'files',
        'mail',
        'weather',
        'fx',
        'translate',
        'files',
      ]);

      await workers[0]!.close();
      expect(pool.alive()).toBe(true);
      const rain = await Promise.all([
        pool.search('is it going to rain', 1, 0),
        pool.search('send an email', 1, 0),
        pool.search('rain', 1, 0),
      ]);
      expect(rain.map((a) => a.hits[0]!.id)).toEqual(['weather', 'mail', 'weather']);
      await workers[1]!.close();
      await expect(pool.search('send an email', 1, 0)).rejects.toThrow(/no embedding worker/);
    } finally {
      await pool.close();
    }
    expect(pool.alive()).toBe(false);
  }, 60_000);
});
