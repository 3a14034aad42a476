// Semantic-side plumbing that needs no model: the precomputed-vectors file, the fallback when the
// worker cannot start, and the knowledge hint.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Skill } from '@axle/sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadCatalog } from '../src/catalog/load.js';
import { slugify } from '../src/catalog/mapping.js';
import { createLogger } from '../src/logger.js';
import { type Embedder, EmbedderClient } from '../src/search/embedder.js';
import { EMBEDDING_DIM, EMBEDDING_MODEL, embeddingText, normalize, textHash } from '../src/search/embedding-text.js';
import { SemanticIndex, type SemanticIndexOptions } from '../src/search/semantic-index.js';
import { skillPassages } from '../src/search/passages.js';
import { toolWords } from '../src/domain/tool-words.js';
import {
  BUNDLED_VECTORS,
  decodeVectors,
  encodeVectors,
  readVectorsFile,
  storedEntries,
} from '../src/search/vector-file.js';
import { createSkillSearch } from '../src/services/skill-search.js';
import { ManualClock } from '../src/clock.js';
import { knowledgeHint } from '../src/services/learnings-port.js';
import { createLearningsService } from '../src/services/learnings.js';
import { createLearningsSearch } from '../src/store/learnings-search.js';
import { Database } from '../src/store/db.js';
import { migrate } from '../src/store/migrate.js';
import { learningsStore } from '../src/store/learnings.js';
import { createSkillsStore, type SkillsStore } from '../src/store/skills.js';
import { newLearning } from './learning-fixture.js';
import { SMALL_CATALOG } from './search-helpers.js';
import { capturingLogger } from './capturing-logger.js';

function randomUnit(dim: number, seed: number): Float32Array {
  let x = seed;
  const v = new Float32Array(dim);
  for (let i = 0; i < dim; i++) {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    v[i] = x / 2 ** 31 - 0.5;
  }
  return normalize(v);
}
const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);

describe('precomputed vectors file', () => {
  it('round-trips int8-quantised unit vectors with cosine above 0.999, keyed by text hash', () => {
    const entries = Array.from({ length: 20 }, (_, i) => ({ hash: `h${i}`, vector: randomUnit(512, i + 1) }));
    const buf = encodeVectors('m1', 512, entries);
    expect(buf.length).toBeLessThan(20 * (512 + 4) + 400);
    const back = decodeVectors(buf, 'm1');
    expect(back.size).toBe(20);
    for (const e of entries) expect(dot(e.vector, back.get(e.hash)!)).toBeGreaterThan(0.999);
    expect(decodeVectors(buf, 'another-model').size).toBe(0);
    expect(() => decodeVectors(buf.subarray(0, buf.length - 1), 'm1')).toThrow(/truncated/);
  });

  it('writes kept codes as stored, so rewriting a file with nothing new gives the same bytes', () => {
    const entries = Array.from({ length: 12 }, (_, i) => ({ hash: `h${i}`, vector: randomUnit(512, i + 7) }));
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'axle-vectors-')), 'v.bin');
    fs.writeFileSync(file, encodeVectors('m1', 512, entries));
    const hashes = entries.map((e) => e.hash);
    // Twice, as `npm run catalog:vectors` run twice does: a float round trip flipped codes at rounding edges.
    for (let run = 0; run < 2; run++) {
      const before = fs.readFileSync(file);
      const { kept, entries: stored } = storedEntries(file, 'm1', [...hashes, 'absent']);
      expect([...kept]).toEqual(hashes.map((_, i) => i));
      fs.writeFileSync(file, encodeVectors('m1', 512, stored));
      expect(fs.readFileSync(file).equals(before)).toBe(true);
    }
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  });

  it('covers every skill of the bundled catalog (after editing the catalog, run `npm run catalog:vectors`)', () => {
    const shipped = readVectorsFile(BUNDLED_VECTORS, EMBEDDING_MODEL);
    const missing = loadCatalog().filter((s) => !shipped.has(textHash(embeddingText(s))));
    expect(missing.map((s) => s.id)).toEqual([]);
  });

  it('hashes the embedded text, so only a changed skill text needs a new vector', () => {
    const [skill] = loadCatalog(SMALL_CATALOG);
    const text = embeddingText(skill!);
    expect(text).toContain(skill!.name);
    expect(text).toContain(skill!.description);
    expect(textHash(embeddingText({ ...skill!, tags: [...skill!.tags, 'new'] }))).not.toBe(textHash(text));
    expect(textHash(embeddingText({ ...skill! }))).toBe(textHash(text));
  });

  it('embeds a name that is one snake_case identifier as words, and other names as they are', () => {
    const [skill] = loadCatalog(SMALL_CATALOG);
    expect(embeddingText({ ...skill!, name: 'zpa_delete_timeout_policy_rule' })).toMatch(
      /^zpa delete timeout policy rule: /,
    );
    expect(embeddingText({ ...skill!, name: 'eBay' })).toMatch(/^eBay: /);
    expect(embeddingText({ ...skill!, name: 'Snake_case Dataset' })).toMatch(/^Snake_case Dataset: /);
  });
});

describe('semantic side unavailable', () => {
  let dir: string;
  let db: Database;
  let repo: SkillsStore;
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'axle-search-'));
    db = await Database.open(path.join(dir, 'axle.db'));
    await migrate(db);
    repo = createSkillsStore(db);
    await repo.replaceCatalog(
      loadCatalog(SMALL_CATALOG).map((skill) => ({ skill, slug: slugify(skill.name) })),
      'fp',
    );
  });
  afterEach(async () => {
    await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('turns unavailable when the worker cannot start, and search falls back to BM25', async () => {
    const semantic = SemanticIndex.start({
      repo,
      logger: createLogger('silent'),
      createEmbedder: () => new EmbedderClient(path.join(dir, 'missing-worker.js')),
    });
    expect(semantic.state()).toBe('warming');
    await semantic.settled;
    expect(semantic.state()).toBe('unavailable');
    const search = createSkillSearch({ repo, semantic });
    expect(search.state()).toEqual({ lexical: 'ready', semantic: 'unavailable' });
    const out = await search.search({ query: 'send email', limit: 3 });
    expect(out.mode).toBe('lexical');
    expect(out.results[0]).toMatchObject({ id: 'postmark', relevance: 1 });
    await expect(search.search({ query: 'send email', mode: 'semantic' })).rejects.toThrow(/unavailable/);
    await semantic.close();
  });

  it('asks a ranker that runs alone for `limit` hits, and answers as with the fusion depth', async () => {
    const semantic = { state: () => 'unavailable' } as unknown as SemanticIndex;
    const depths: number[] = [];
    const spy = Object.create(repo) as SkillsStore;
    spy.lexicalSearch = (text, filters, limit) => {
      depths.push(limit);
      return repo.lexicalSearch(text, filters, limit);
    };
    const deep = await createSkillSearch({ repo, semantic }).search({ query: 'send email api', limit: 25 });
    const shallow = await createSkillSearch({ repo: spy, semantic }).search({ query: 'send email api', limit: 3 });
    expect(depths).toEqual([3]);
    expect(shallow.results).toEqual(deep.results.slice(0, 3));
  });

  it('degrades a fused search to BM25 when the semantic ranker fails at query time', async () => {
    const broken = {
      state: () => 'ready',
      search: () => Promise.reject(new Error('worker exited')),
    } as unknown as SemanticIndex;
    const search = createSkillSearch({ repo, semantic: broken });
    const out = await search.search({ query: 'send email', limit: 3 });
    expect(out.mode).toBe('lexical');
    expect(out.results[0]).toMatchObject({ id: 'postmark', relevance: 1 });
    await expect(search.search({ query: 'send email', mode: 'semantic' })).rejects.toThrow('worker exited');
  });

  it('does not report a search cut short by close() as the semantic side failing', async () => {
    const lines: string[] = [];
    const logger = createLogger('info', {
      write: (line: string) => lines.push(line),
    } as unknown as NodeJS.WritableStream);
    let alive = true;
    let cut: (err: Error) => void = () => undefined;
    const embedder: Embedder = {
      init: async () => undefined,
      embed: async (texts) => texts.map((_, i) => randomUnit(512, i + 1)),
      setIndex: async (ids) => ids.length,
      search: () => new Promise((_, reject) => (cut = reject)),
      queryVector: async () => randomUnit(512, 1),
      alive: () => alive,
      close: async () => {
        alive = false;
        cut(new Error('embedding worker closed'));
      },
    };
    const semantic = SemanticIndex.start({ repo, logger, createEmbedder: () => embedder });
    await semantic.settled;
    expect(semantic.state()).toBe('ready');
    const inFlight = semantic.search('send email', 10, 0.2);
    await semantic.close();
    await expect(inFlight).rejects.toThrow('embedding worker closed');
    expect(lines.map((l) => JSON.parse(l).msg)).not.toContain(
      'semantic search unavailable; skill search runs lexically',
    );
  });

  it('searches with fresh workers after computing vectors (embedding batches leave their memory grown), with the same ones when every vector was stored', async () => {
    const events: string[] = [];
    const indexes: Array<{ ids: string[]; codes: number[]; scales: number[] }> = [];
    const fake = (n: number): Embedder => ({
      init: async () => void events.push(`init ${n}`),
      embed: async (texts) => {
        events.push(`embed ${n}`);
        // A vector of the text alone, as from a model, whatever batch the text comes in.
        return texts.map((t) =>
          randomUnit(EMBEDDING_DIM, (Number.parseInt(textHash(t).slice(0, 7), 16) % 2 ** 30) + 1),
        );
      },
      setIndex: async (ids, rows) => {
        events.push(`index ${n}`);
        indexes.push({ ids, codes: [...rows.codes], scales: [...rows.scales] });
        return ids.length;
      },
      search: async () => [],
      queryVector: async () => randomUnit(EMBEDDING_DIM, 1),
      alive: () => true,
      close: async () => void events.push(`close ${n}`),
    });
    const noVectors = path.join(dir, 'none.bin');
    fs.writeFileSync(noVectors, encodeVectors(EMBEDDING_MODEL, EMBEDDING_DIM, []));
    let made = 0;
    const start = () =>
      SemanticIndex.start({
        repo,
        logger: createLogger('silent'),
        vectorsFile: noVectors,
        createEmbedder: () => fake(++made),
      });
    const skills = loadCatalog(SMALL_CATALOG).length;

    const first = start();
    expect(await first.settled).toMatchObject({ reused: 0, computed: skills });
    expect(events.filter((e) => e !== 'embed 1')).toEqual(['init 1', 'close 1', 'init 2', 'index 2']);
    expect(events).toContain('embed 1');
    await first.close();

    events.length = 0;
    const again = start();
    expect(await again.settled).toMatchObject({ reused: skills, computed: 0 });
    expect(again.state()).toBe('ready');
    await again.close();
    expect(events).toEqual(['init 3', 'index 3', 'close 3']);

    // Computed, stored, or some of each: the workers get the same int8 rows in catalog order.
    await db.run('DELETE FROM skill_embeddings WHERE rowid % 2 = 0');
    const mixed = start();
    expect(await mixed.settled).toMatchObject({ reused: Math.ceil(skills / 2), computed: Math.floor(skills / 2) });
    await mixed.close();
    expect(indexes).toHaveLength(3);
    expect(indexes[0]!.ids).toHaveLength(skills);
    expect(indexes[1]).toEqual(indexes[0]);
    expect(indexes[2]).toEqual(indexes[0]);
  });

  describe('passage vectors of MCP servers with tools', () => {
    /** A fake model: a text's vector from its hash alone; `passageCalls` counts calls that embed passages. */
    function passageModel(opts: { failPassages?: boolean } = {}) {
      const calls = { passages: 0, texts: 0 };
      const skillTexts = new Set(loadCatalog(SMALL_CATALOG).map((skill) => embeddingText(skill)));
      const embedder = (): Embedder => ({
        init: async () => undefined,
        embed: async (texts) => {
          if (!texts.every((t) => skillTexts.has(t))) {
            calls.passages++;
            calls.texts += texts.length;
            if (opts.failPassages) throw new Error('model failed');
          }
          return texts.map((t) =>
            randomUnit(EMBEDDING_DIM, (Number.parseInt(textHash(t).slice(0, 7), 16) % 2 ** 30) + 1),
          );
        },
        setIndex: async (ids) => ids.length,
        search: async () => ({ hits: [], vector: randomUnit(EMBEDDING_DIM, 1) }),
        queryVector: async () => randomUnit(EMBEDDING_DIM, 1),
        alive: () => true,
        close: async () => undefined,
      });
      return { calls, embedder };
    }
    const github = loadCatalog(SMALL_CATALOG).find((skill) => skill.id === 'github-mcp')!;
    const noVectors = () => {
      const file = path.join(dir, 'none.bin');
      fs.writeFileSync(file, encodeVectors(EMBEDDING_MODEL, EMBEDDING_DIM, []));
      return file;
    };
    const stored = async () => (await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM passage_embeddings'))!.n;
    /** An index over `repo` computing the passages the file lacks (it holds none), at most 100; `options` add to it. */
    const computing = (createEmbedder: () => Embedder, options: Partial<SemanticIndexOptions> = {}) =>
      SemanticIndex.start({
        repo,
        logger: createLogger('silent'),
        vectorsFile: noVectors(),
        passageLimit: 100,
        createEmbedder,
        ...options,
      });
    /** `model`'s embedder, awaiting `after` once each of its calls returned. */
    const hooked = (model: ReturnType<typeof passageModel>, after: () => Promise<void>) => (): Embedder => {
      const inner = model.embedder();
      return {
        ...inner,
        embed: async (texts) => {
          const out = await inner.embed(texts);
          await after();
          return out;
        },
      };
    };

    it('computes the ones neither the bundled file nor the database holds once ready, stores them by text hash, reranks with them, and a restart reuses them', async () => {
      const model = passageModel();
      const start = () => computing(model.embedder);
      const first = start();
      await first.settled;
      await first.caughtUp();
      const passages = skillPassages(github);
      expect(model.calls.texts).toBe(passages.length);
      expect(await stored()).toBe(passages.length);
      // A tool's own vector is its best passage for a query that is that tool's text.
      const tool = `${toolWords(github.tools![0]!.name)}: ${github.tools![0]!.description}`;
      const toolVector = randomUnit(EMBEDDING_DIM, (Number.parseInt(textHash(tool).slice(0, 7), 16) % 2 ** 30) + 1);
      const scores = first.passageScores(toolVector, ['github-mcp', 'postmark']);
      expect([...scores.keys()]).toEqual(['github-mcp']);
      expect(scores.get('github-mcp')).toBeGreaterThan(0.99);
      await first.close();

      const again = start();
      await again.settled;
      // Already there at ready, read from the database: nothing computed.
      expect(again.passageScores(toolVector, ['github-mcp']).get('github-mcp')).toBeCloseTo(
        scores.get('github-mcp')!,
        6,
      );
      await again.caughtUp();
      expect(model.calls.texts).toBe(passages.length);
      await again.close();
    });

    it('computes none for skills without tools or with a limit of 0, and at most the limit for a catalog, the first in catalog order', async () => {
      const model = passageModel();
      const index = (passageLimit: number) => computing(model.embedder, { passageLimit });
      const off = index(0);
      await off.caughtUp();
      expect(model.calls.passages).toBe(0);
      await off.close();

      const limited = index(1);
      await limited.caughtUp();
      await limited.refresh();
      const rows = await db.all<{ text_hash: string }>('SELECT text_hash FROM passage_embeddings');
      expect(rows.map((r) => r.text_hash)).toEqual([textHash(skillPassages(github)[0]!)]);
      await limited.close();
      // Only github-mcp lists tools: the other skills' descriptions were never embedded as passages.
      expect(model.calls.texts).toBe(1);
    });

    it('resumes a run cut short (a stop mid-way) without computing again what it saved', async () => {
      const model = passageModel();
      let cut: SemanticIndex | undefined;
      const start = (embedder: () => Embedder) => computing(embedder, { batchSize: 1 });
      // The second passage's model call comes back after the index was closed: only the first was saved.
      cut = start(
        hooked(model, async () => {
          if (model.calls.passages === 2) await cut!.close();
        }),
      );
      await cut.settled;
      await cut.caughtUp();
      expect(await stored()).toBe(1);
      const again = start(model.embedder);
      await again.caughtUp();
      const passages = skillPassages(github).length;
      expect(await stored()).toBe(passages);
      expect(model.calls.texts).toBe(passages + 1);
      await again.close();
    });

    it('lets a catalog change asked for meanwhile go first, after one batch, then goes on without computing any twice', async () => {
      const model = passageModel();
      const events: string[] = [];
      let semantic: SemanticIndex | undefined;
      let changed: Promise<void> | undefined;
      semantic = computing(
        () => {
          const inner = model.embedder();
          return {
            ...inner,
            embed: async (texts) => {
              const before = model.calls.passages;
              const out = await inner.embed(texts);
              if (model.calls.passages > before) {
                events.push('passage');
                // The catalog changes while the first passage is computed: a server is gone.
                if (model.calls.passages === 1) {
                  await repo.replaceCatalog(
                    loadCatalog(SMALL_CATALOG)
                      .filter((skill) => skill.id !== 'postmark')
                      .map((skill) => ({ skill, slug: slugify(skill.name) })),
                    'fp-changed',
                  );
                  changed = semantic!.refresh();
                }
              }
              return out;
            },
            setIndex: async (ids) => {
              events.push(`index ${ids.length}`);
              return ids.length;
            },
          };
        },
        { batchSize: 1 },
      );
      await semantic.settled;
      await semantic.caughtUp();
      await changed;
      const skills = loadCatalog(SMALL_CATALOG).length;
      const passages = skillPassages(github).length;
      expect(events.slice(0, 3)).toEqual([`index ${skills}`, 'passage', `index ${skills - 1}`]);
      expect(events.filter((e) => e === 'passage')).toHaveLength(passages);
      expect(model.calls.texts).toBe(passages);
      expect(await stored()).toBe(passages);
      await semantic.close();
    });

    /** The catalog stored as `skills`, under `fingerprint`, as a sync or another instance's start leaves it. */
    const replace = (skills: Skill[], fingerprint: string) =>
      repo.replaceCatalog(
        skills.map((skill) => ({ skill, slug: slugify(skill.name) })),
        fingerprint,
      );
    /** The small catalog with `github-mcp` as `server`. */
    const withGithub = (server: Skill) => loadCatalog(SMALL_CATALOG).map((s) => (s.id === server.id ? server : s));
    /** The stored passage rows as `model hash`, sorted. */
    const rows = async () =>
      (await db.all<{ model: string; text_hash: string }>('SELECT model, text_hash FROM passage_embeddings'))
        .map((r) => `${r.model} ${r.text_hash}`)
        .sort();
    const rowsOf = (skill: Skill) => skillPassages(skill).map((text) => `${EMBEDDING_MODEL} ${textHash(text)}`);
    const olderModel = () =>
      repo.savePassageVectors('an-older-model', [{ textHash: 'h', vector: randomUnit(EMBEDDING_DIM, 5) }]);

    it("prunes, once a catalog change's passages are stored, the rows of another model and of a removed tool, keeping the still-wanted ones", async () => {
      const model = passageModel();
      const lines: Array<Record<string, unknown>> = [];
      const semantic = computing(model.embedder, { logger: capturingLogger(lines) });
      await semantic.caughtUp();
      await olderModel();
      const changed = { ...github, tools: github.tools!.slice(1) };
      await replace(withGithub(changed), 'fp-2');
      await semantic.refresh();
      expect(await rows()).toEqual(rowsOf(changed).sort());
      // One text computed since, the changed server's own: none of the passages the change left.
      expect(model.calls.texts).toBe(skillPassages(github).length + 1);
      expect(lines).toContainEqual(expect.objectContaining({ msg: 'passage vectors pruned', pruned: 2 }));
      await semantic.close();
    });

    it("computes and prunes after a change of a tool's description alone, which leaves the server's embedded text as it was", async () => {
      const model = passageModel();
      const semantic = computing(model.embedder);
      await semantic.caughtUp();
      const [first, second] = github.tools!;
      const changed = { ...github, tools: [first!, { ...second!, description: 'Merge a pull request' }] };
      expect(embeddingText(changed)).toBe(embeddingText(github));
      await replace(withGithub(changed), 'fp-2');
      await semantic.refresh();
      expect(await rows()).toEqual(rowsOf(changed).sort());
      // One text computed since: the changed tool's passage.
      expect(model.calls.texts).toBe(skillPassages(github).length + 1);
      await semantic.close();
    });

    it('prunes nothing while the stored catalog is newer than the one it loaded (another instance replaced it), and prunes once caught up', async () => {
      const model = passageModel();
      await olderModel();
      const newer = { ...github, tools: github.tools!.slice(1) };
      const ofNewer = { textHash: 'of-the-newer-catalog', vector: randomUnit(EMBEDDING_DIM, 6) };
      const semantic = computing(
        // While it computes its first passage, another instance stores a newer catalog and one of its passages.
        hooked(model, async () => {
          if (model.calls.passages === 1 && (await repo.catalogFingerprint()) === 'fp') {
            await replace(withGithub(newer), 'fp-newer');
            await repo.savePassageVectors(EMBEDDING_MODEL, [ofNewer]);
          }
        }),
        { batchSize: 1 },
      );
      await semantic.caughtUp();
      const stale = [...rowsOf(github), `${EMBEDDING_MODEL} ${ofNewer.textHash}`, 'an-older-model h'];
      expect(await rows()).toEqual(stale.sort());
      await semantic.refresh();
      expect(await rows()).toEqual(rowsOf(newer).sort());
      await semantic.close();
    });

    it('leaves search ready, reranking with the computed ones, when pruning fails', async () => {
      const model = passageModel();
      const lines: Array<Record<string, unknown>> = [];
      const failing = Object.create(repo) as SkillsStore;
      let attempts = 0;
      failing.prunePassageVectors = async () => {
        attempts++;
        throw new Error('database is locked');
      };
      const semantic = computing(model.embedder, { repo: failing, logger: capturingLogger(lines) });
      await semantic.caughtUp();
      await semantic.refresh();
      expect(attempts).toBe(2);
      expect(semantic.state()).toBe('ready');
      const tool = `${toolWords(github.tools![0]!.name)}: ${github.tools![0]!.description}`;
      const toolVector = randomUnit(EMBEDDING_DIM, (Number.parseInt(textHash(tool).slice(0, 7), 16) % 2 ** 30) + 1);
      expect(semantic.passageScores(toolVector, ['github-mcp']).get('github-mcp')).toBeGreaterThan(0.99);
      expect(lines).toContainEqual(
        expect.objectContaining({
          level: 40,
          msg: 'passage vectors not pruned; search goes on',
          err: 'database is locked',
        }),
      );
      await semantic.close();
    });

    describe('two instances starting together on one database', () => {
      /** Six servers of 40 tools each besides the small catalog's. */
      const servers = Array.from({ length: 6 }, (_, k) => ({
        ...github,
        id: `tools-${k}`,
        name: `Tools ${k}`,
        tools: Array.from({ length: 40 }, (_, j) => ({
          name: `tool_${k}_${j}`,
          description: `Does task ${j} of ${k}.`,
        })),
      }));
      const listing = [github, ...servers];
      const passageTexts = new Set(listing.flatMap((skill) => skillPassages(skill)));
      /** A model that takes a moment per call (so the instances interleave); `embedded` counts passages embedded. */
      const slowModel = (embedded: { passages: number }) => (): Embedder => ({
        ...passageModel().embedder(),
        embed: async (texts) => {
          await new Promise((resolve) => setTimeout(resolve, 2));
          embedded.passages += texts.filter((t) => passageTexts.has(t)).length;
          return texts.map((t) =>
            randomUnit(EMBEDDING_DIM, (Number.parseInt(textHash(t).slice(0, 7), 16) % 2 ** 30) + 1),
          );
        },
      });
      /** A fixed sequence of fractions: `first`, then a pseudo-random one from `seed`. */
      const fractions = (first: number, seed: number) => {
        let next = first;
        return () => {
          const fraction = next;
          seed = (seed * 1103515245 + 12345) % 2 ** 31;
          next = seed / 2 ** 31;
          return fraction;
        };
      };

      it.each([
        ['far apart', 0.1, 0.6],
        ['close together', 0.1, 0.12],
        ['the same', 0.1, 0.1],
      ])('computes each passage once or close to it when their starting points are %s', async (_, a, b) => {
        await replace([...loadCatalog(SMALL_CATALOG), ...servers], 'fp-servers');
        const embedded = [{ passages: 0 }, { passages: 0 }];
        const instances = [a, b].map((first, n) =>
          computing(slowModel(embedded[n]!), { passageLimit: 1_000, batchSize: 8, random: fractions(first, n + 1) }),
        );
        await Promise.all(instances.map((i) => i.caughtUp()));
        const total = embedded[0]!.passages + embedded[1]!.passages;
        expect(total).toBeGreaterThanOrEqual(passageTexts.size);
        expect(total).toBeLessThan(passageTexts.size * 1.2);
        // Each did part of the work, and each passage is stored once.
        expect(Math.min(embedded[0]!.passages, embedded[1]!.passages)).toBeGreaterThan(passageTexts.size / 4);
        expect(await rows()).toEqual([...passageTexts].map((t) => `${EMBEDDING_MODEL} ${textHash(t)}`).sort());
        // Both rerank with all of them, those the other computed included.
        const ids = listing.map((skill) => skill.id);
        for (const i of instances) expect(i.passageScores(randomUnit(EMBEDDING_DIM, 7), ids).size).toBe(ids.length);
        await Promise.all(instances.map((i) => i.close()));
      });
    });

    it('leaves search as it was, ready, when computing them fails', async () => {
      const model = passageModel({ failPassages: true });
      const semantic = computing(model.embedder);
      await semantic.caughtUp();
      expect(model.calls.passages).toBe(1);
      expect(semantic.state()).toBe('ready');
      expect(semantic.passageScores(randomUnit(EMBEDDING_DIM, 3), ['github-mcp']).size).toBe(0);
      expect(await stored()).toBe(0);
      await semantic.close();
    });
  });

  it('does not replace the catalog when its fingerprint is unchanged', async () => {
    const entries = loadCatalog(SMALL_CATALOG).map((skill) => ({ skill, slug: slugify(skill.name) }));
    expect(await repo.replaceCatalog(entries, 'fp')).toBe(false);
    const kept = new Set(['weatherstack', 'coingecko', 'deepl']);
    expect(
      await repo.replaceCatalog(
        entries.filter((e) => kept.has(e.skill.id)),
        'fp2',
      ),
    ).toBe(true);
    expect(await repo.count()).toBe(3);
    expect(await repo.catalogFingerprint()).toBe('fp2');
    expect(await repo.lexicalSearch('send email', {}, 10)).toEqual([]);
    expect((await repo.lexicalSearch('weather', {}, 10)).map((r) => r.id)).toEqual(['weatherstack']);
  });

  it('reads a catalog and its vectors larger than one page (2,000 rows) whole and in order', async () => {
    const base = loadCatalog(SMALL_CATALOG);
    const skills = Array.from({ length: 4_500 }, (_, i) => {
      const skill = base[i % base.length]!;
      return { ...skill, id: `${skill.id}-${i}`, name: `${skill.name} ${i}` };
    });
    await repo.replaceCatalog(
      skills.map((skill) => ({ skill, slug: slugify(skill.name) })),
      'big',
    );
    const ids = skills.map((s) => s.id);
    const got = await repo.getMany([ids[0]!, ids[2_000]!, ids[4_499]!]);
    expect([...got.keys()]).toEqual([ids[0], ids[2_000], ids[4_499]]);
    // The FTS rowids of skills past the first pages map back to their ids.
    const unique = skills[4_321]!;
    expect((await repo.lexicalSearch(unique.name, {}, 1)).map((r) => r.id)).toEqual([unique.id]);
    await repo.saveEmbeddings(
      'm',
      skills.map((skill, i) => ({ skillId: skill.id, textHash: `h${i}`, vector: randomUnit(8, i + 1) })),
    );
    const stored = await repo.embeddingMatrix('m', 8);
    expect(stored.ids).toEqual(ids);
    expect(stored.textHashes[4_499]).toBe('h4499');
    expect(stored.rows.scales.length).toBe(4_500);
  });

  it('gives a knowledge hint only once an approved learning exists, rechecked at most once a second', async () => {
    const clock = new ManualClock();
    const hints = createLearningsService({ db, learningsSearch: createLearningsSearch(db, () => clock.now()), clock });
    expect(await hints.hintFor('email')).toBeNull();
    await learningsStore.insert(db, newLearning({ status: 'pending_review' }));
    clock.advance(1000);
    await hints.hintFor('email');
    expect(await hints.hintFor('email')).toBeNull();
    const approved = newLearning({ status: 'approved', seq: 1 });
    await learningsStore.insert(db, approved);
    // The stale answer comes first and starts a refresh; the next call sees the approved learning, and
    // points to it only for a query that shares a word with it.
    clock.advance(1000);
    expect(await hints.hintFor('multipart')).toBeNull();
    // The refresh runs in the background; a loaded machine may take over a second to finish it.
    await expect
      .poll(() => hints.hintFor('multipart "upload"'), { timeout: 15_000 })
      .toBe(knowledgeHint('multipart "upload"'));
    expect(await hints.hintFor('send email')).toBeNull();
    expect(knowledgeHint('send "email"')).toContain('POST /knowledge {"query": "send \\"email\\""}');
  });
});
