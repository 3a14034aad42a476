import type { Skill } from '@axle/sdk';
import type { Database } from './db.js';
import type { Queryable, Transactor } from './queryable.js';
import {
  type CatalogWriter,
  FINGERPRINT_KEY,
  type PlacedEntry,
  planReload,
  skillColumns,
  writeCatalogDiff,
} from './catalog-reload.js';
import { PAGE_ROWS, pages } from './pages.js';
import { type QuantizedRows, quantizeInto } from '../domain/quantize.js';
import { toolWords } from '../domain/tool-words.js';
import { queryTerms } from '../domain/query-terms.js';
import { commonTermCutoff, matchExpression, selectiveMatchExpression } from './fts-query.js';

export interface SkillFilters {
  category?: string;
  type?: string;
  /** Matches Skill.pricing.model, case-insensitively. */
  pricing?: string;
}

export interface RankedId {
  id: string;
  /** Larger is better. */
  score: number;
}

export interface StoredEmbedding {
  skillId: string;
  textHash: string;
  /** Unit length. */
  vector: Float32Array;
}

/** Stored vectors of one model, in catalog order, int8-quantised: row i of `rows` is `ids[i]`. */
export interface StoredMatrix {
  ids: string[];
  textHashes: string[];
  rows: QuantizedRows;
}

/** What a skill's embedded text and its passages are made of (embeddingText, skillPassages). */
export type EmbeddingSource = Pick<Skill, 'id' | 'name' | 'description' | 'tags' | 'category' | 'tools' | 'examples'>;

export interface CatalogEntry {
  skill: Skill;
  /** Slug of the skill's name, for lookups by name. */
  slug: string;
}

/** Everything skill search and the registry routes need from storage; the dialect stays behind it. */
export interface SkillsStore {
  catalogFingerprint(): Promise<string | undefined>;
  /**
   * Replaces the catalog unless `fingerprint` is already the stored one; true when it replaced. Only the skills that
   * changed are written when most are unchanged (catalog-reload.ts).
   */
  replaceCatalog(entries: CatalogEntry[], fingerprint: string): Promise<boolean>;
  /** Drops what it keeps in memory of the catalog (another instance replaced it). */
  forget(): void;
  /** By exact id first, then by name slug (first in catalog order); null for by id alone. */
  findByIdOrSlug(id: string, slug: string | null): Promise<Skill | undefined>;
  /** Search results: the skills without their `tools`. */
  getMany(ids: readonly string[]): Promise<Map<string, Skill>>;
  all(): Promise<Skill[]>;
  count(): Promise<number>;
  countBy(field: 'category' | 'type'): Promise<Record<string, number>>;
  /** BM25 over name, description, tags, category and tools (best first), at most `limit`. */
  lexicalSearch(text: string, filters: SkillFilters, limit: number): Promise<RankedId[]>;
  /**
   * The same matches ranked twice: `fields` as lexicalSearch (each column its weight), `flat` by BM25 over the
   * whole record (every column weighing alike), the extra ranking fused search adds; and `tools`, the skills whose
   * tools match, by their best tool's BM25 (each tool one document, TOOL_WEIGHTS).
   */
  lexicalRankings(text: string, filters: SkillFilters, limit: number): Promise<LexicalRankings>;
  /** Ids passing `filters`, or null when there are no filters (everything passes). */
  idsMatching(filters: SkillFilters): Promise<Set<string> | null>;
  /** Whether some term of `text` is not common in the catalog, as lexical search counts terms (fts-query.ts). */
  holdsRareTerm(text: string): Promise<boolean>;
  /** Catalog order; only the fields embeddings are computed from. */
  embeddingSources(): Promise<EmbeddingSource[]>;
  /** Vectors of `dim` floats stored for `model`, quantised row by row into one int8 matrix (others are skipped). */
  embeddingMatrix(model: string, dim: number): Promise<StoredMatrix>;
  saveEmbeddings(model: string, rows: readonly StoredEmbedding[]): Promise<void>;
  /** Passage vectors of `dim` floats stored for `model`, by text hash, for those of `hashes` it holds. */
  passageVectors(model: string, dim: number, hashes: readonly string[]): Promise<Map<string, Float32Array>>;
  /** Those of `hashes` with a passage vector stored for `model` (the hashes alone, not the vectors). */
  heldPassages(model: string, hashes: readonly string[]): Promise<Set<string>>;
  /** Stores passage vectors of `model`, keeping the vector of a hash stored already; returns how many it stored. */
  savePassageVectors(model: string, rows: readonly StoredPassage[]): Promise<number>;
  /**
   * Deletes the passage vectors of other models, and those of `model` whose hash `keep` lacks, while `catalog` is the
   * stored catalog's fingerprint; returns how many it deleted.
   */
  prunePassageVectors(model: string, keep: ReadonlySet<string>, catalog: string): Promise<number>;
}

export interface StoredPassage {
  textHash: string;
  vector: Float32Array;
}

export interface LexicalRankings {
  fields: RankedId[];
  flat: RankedId[];
  /** Skills by the BM25 of their best-matching tool (MCP servers listing tools; others never appear). */
  tools: RankedId[];
}

/**
 * bm25() weights, in skills_fts column order: name, description, tags (with the examples: tagsText), category, tools
 * (tuned on `npm run eval`).
 */
const BM25_WEIGHTS = [10, 2, 6, 2, 1] as const;
/** bm25() weights of the flat ranking: the record as one text. */
const FLAT_WEIGHTS = [1, 1, 1, 1, 1] as const;
/** bm25() weights of a tool, in skill_tools_fts column order: its name as words, its description. */
export const TOOL_WEIGHTS = [2, 1] as const;
/** A tool's rowid in skill_tools_fts is its skill's rowid x this, plus its index in the skill's list. */
const TOOL_ROWIDS = 2 ** 20;
/** The flat ranking reorders this many times `limit` of the field-weighted ranking's best rows (bench/README.md). */
const RERANKED_POOL = 3;
/** Rows read past an unfiltered ranking's limit, for the ties of its last row (bench/README.md). */
const TIE_MARGIN = 8;

/** Bound on remembered document frequencies (terms come from user input). */
const MAX_DF_TERMS = 50_000;

export function filterSql(filters: SkillFilters, alias: string): { sql: string; params: unknown[] } {
  const clauses: string[] = [];
  const params: unknown[] = [];
  if (filters.category !== undefined) {
    clauses.push(`${alias}.category = ?`);
    params.push(filters.category);
  }
  if (filters.type !== undefined) {
    clauses.push(`${alias}.type = ?`);
    params.push(filters.type);
  }
  if (filters.pricing !== undefined) {
    clauses.push(`${alias}.pricing_model = ?`);
    params.push(filters.pricing.toLowerCase());
  }
  return { sql: clauses.map((c) => ` AND ${c}`).join(''), params };
}

export const toBlob = (v: Float32Array): Buffer => Buffer.from(v.buffer, v.byteOffset, v.byteLength);

/** The catalog rows a search needs, kept in memory (see createSkillsStore). */
interface CatalogInMemory {
  byRowid: Map<number, { id: string; position: number }>;
  dataById: Map<string, string>;
}

/**
 * The skills store of `db`. Unlike the other stores it is built once per database: it keeps the catalog
 * and term statistics in memory between searches, and forgets them when it replaces the catalog.
 */
export function createSkillsStore(db: Database): SkillsStore {
  /** Rows of the catalog and rows containing each query term, for `selectiveMatchExpression`; cleared when the catalog is replaced. */
  let df = new Map<string, Promise<number>>();
  let catalogRows: Promise<number> | undefined;
  let toolRows: Promise<number> | undefined;
  let inMemory: Promise<CatalogInMemory> | undefined;

  const forget = () => {
    df = new Map();
    catalogRows = undefined;
    toolRows = undefined;
    inMemory = undefined;
  };

  const count = async (): Promise<number> => (await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM skills'))?.n ?? 0;

  /**
   * The catalog's ids and positions by rowid and its skills' JSON by id, read once: a search then needs no
   * statement besides its FTS query (the JSON is parsed only for the results returned).
   */
  function catalog(): Promise<CatalogInMemory> {
    if (!inMemory) {
      inMemory = readCatalog();
      inMemory.catch(() => (inMemory = undefined));
    }
    return inMemory;
  }

  /** Page by page, so the rows read are never all in memory at once beside the maps. */
  async function readCatalog(): Promise<CatalogInMemory> {
    const byRowid = new Map<number, { id: string; position: number }>();
    const dataById = new Map<string, string>();
    const read = (after: number) =>
      db.all<{ rowid: number; id: string; position: number; data: string }>(
        // Without tool lists (up to hundreds a server): results leave them out, GET /skill/{id} reads the row.
        "SELECT rowid, id, position, json_remove(data, '$.tools') AS data FROM skills WHERE rowid > ? ORDER BY rowid LIMIT ?",
        [after, PAGE_ROWS],
      );
    for await (const rows of pages(read, (r) => r.rowid, 0)) {
      for (const r of rows) {
        byRowid.set(r.rowid, { id: r.id, position: r.position });
        dataById.set(r.id, r.data);
      }
    }
    return { byRowid, dataById };
  }

  /** Rows of `index` (skills_fts, or skill_tools_fts: one row a tool) containing `term`. */
  function documentFrequency(term: string, index: 'skills_fts' | 'skill_tools_fts' = 'skills_fts'): Promise<number> {
    const key = `${index}\0${term}`;
    let n = df.get(key);
    if (n === undefined) {
      if (df.size >= MAX_DF_TERMS) df.clear();
      n = db
        .get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${index} WHERE ${index} MATCH ?`, [matchExpression([term])])
        .then((r) => r?.n ?? 0);
      df.set(key, n);
      n.catch(() => df.delete(key));
    }
    return n;
  }

  /** The FTS expression selecting `text`'s rows, or null when no term is left to match. */
  async function matching(text: string, filters: SkillFilters): Promise<string | null> {
    const terms = queryTerms(text);
    // With filters, a common term may be all that a row passing them has, so every term matches.
    if (filterSql(filters, 's').params.length > 0) return matchExpression(terms);
    catalogRows ??= count();
    return selectiveMatchExpression(
      terms,
      await Promise.all(terms.map((t) => documentFrequency(t))),
      await catalogRows,
    );
  }

  /**
   * The skills passing `filters` whose tools match `text`, each by its best tool's bm25() (TOOL_WEIGHTS), best first,
   * at most `limit`. Terms common among the tools only rank, as in `matching`; without filters, a text without a rarer
   * term that some tool holds ranks nothing, without a statement (tools sharing only `get` or `list` with it say
   * little, and scoring thousands of them costs).
   */
  async function toolRanking(text: string, filters: SkillFilters, limit: number): Promise<RankedId[]> {
    toolRows ??= db.get<{ n: number }>('SELECT COUNT(*) AS n FROM skill_tools_fts').then((r) => r?.n ?? 0);
    const rows = await toolRows;
    const terms = queryTerms(text);
    if (rows === 0 || terms.length === 0) return [];
    const where = filterSql(filters, 's');
    let match: string | null = matchExpression(terms);
    if (where.params.length === 0) {
      const df = await Promise.all(terms.map((t) => documentFrequency(t, 'skill_tools_fts')));
      if (df.every((n) => n === 0 || n > commonTermCutoff(rows))) return [];
      match = selectiveMatchExpression(terms, df, rows);
    }
    // bm25() cannot be aggregated where it is computed: the matches are materialised first.
    const found = await db.all<{ id: string; r: number }>(
      `WITH m AS MATERIALIZED (
         SELECT rowid / ${TOOL_ROWIDS} AS skill, bm25(skill_tools_fts, ${TOOL_WEIGHTS.join(', ')}) AS r
           FROM skill_tools_fts WHERE skill_tools_fts MATCH ?)
       SELECT s.id AS id, MIN(m.r) AS r FROM m JOIN skills s ON s.rowid = m.skill
        WHERE 1 = 1${where.sql}
        GROUP BY s.rowid ORDER BY r, s.position LIMIT ?`,
      [match, ...where.params, limit],
    );
    return found.map((f) => ({ id: f.id, score: -f.r }));
  }

  /**
   * The rows of `match` passing `filters`, ranked once per bm25() column weighting, best first, at most `limit` a
   * ranking. One statement scores each row once per weighting (the FTS match, the costly part, runs once); the other
   * weightings reorder the first weighting's best `RERANKED_POOL` x `limit` rows, so the rows read stay bounded.
   */
  async function ranked(
    match: string,
    filters: SkillFilters,
    limit: number,
    weightings: ReadonlyArray<readonly number[]>,
  ): Promise<RankedId[][]> {
    const where = filterSql(filters, 's');
    const ranks = weightings.map((w, i) => `bm25(skills_fts, ${w.join(', ')}) AS r${i}`).join(', ');
    const pool = weightings.length === 1 ? limit : RERANKED_POOL * limit;
    // Rows in the first weighting's order: [id, bm25 per weighting].
    let rows: Array<[string, number[]]>;
    const scores = (r: Record<string, number>) => weightings.map((_, i) => r[`r${i}`]!);
    if (where.params.length > 0) {
      const found = await db.all<Record<string, number> & { id: string }>(
        `SELECT s.id AS id, ${ranks}
           FROM skills_fts JOIN skills s ON s.rowid = skills_fts.rowid
          WHERE skills_fts MATCH ?${where.sql}
          ORDER BY r0, s.position LIMIT ?`,
        [match, ...where.params, pool],
      );
      rows = found.map((r) => [r.id, scores(r)]);
    } else {
      // Unfiltered, the index alone answers and ids and positions come from memory, which is several times
      // faster than joining the skills table.
      const [found, { byRowid }] = await Promise.all([bestMatches(match, ranks, pool), catalog()]);
      const placed: Array<{ id: string; position: number; scores: number[] }> = [];
      for (const r of found) {
        const skill = byRowid.get(r.rowid);
        if (skill !== undefined) placed.push({ id: skill.id, position: skill.position, scores: scores(r) });
      }
      // Equal scores in catalog order, as the filtered statement has them.
      placed.sort((x, y) => x.scores[0]! - y.scores[0]! || x.position - y.position);
      rows = placed.slice(0, pool).map((p) => [p.id, p.scores]);
    }
    // bm25() is lower-is-better (negative); flip it so every ranker says larger is better. The sort is stable:
    // equal scores keep the first weighting's order.
    return weightings.map((_, i) => {
      const order = i === 0 ? rows : rows.slice().sort((x, y) => x[1][i]! - y[1][i]!);
      return order.slice(0, limit).map(([id, r]) => ({ id, score: -r[i]! }));
    });
  }

  /**
   * The index's rows matching `match` with the `pool` best first-weighting scores (r0), and every row tying with the
   * last of them: a reload by difference leaves rowids out of catalog order, so ties are broken by position in
   * memory. TIE_MARGIN rows more are read at once; a run of ties longer than that is read again, twice as far.
   */
  async function bestMatches(
    match: string,
    ranks: string,
    pool: number,
  ): Promise<Array<Record<string, number> & { rowid: number }>> {
    for (let limit = pool + TIE_MARGIN; ; limit *= 2) {
      const found = await db.all<Record<string, number> & { rowid: number }>(
        `SELECT rowid, ${ranks} FROM skills_fts WHERE skills_fts MATCH ? ORDER BY r0 LIMIT ?`,
        [match, limit],
      );
      if (found.length < limit || found[limit - 1]!.r0 !== found[pool - 1]?.r0) return found;
    }
  }

  return {
    async catalogFingerprint(): Promise<string | undefined> {
      return (await db.get<{ value: string }>('SELECT value FROM meta WHERE key = ?', [FINGERPRINT_KEY]))?.value;
    },

    async replaceCatalog(entries: CatalogEntry[], fingerprint: string): Promise<boolean> {
      // Worked out on a reader, so writes wait only while the transaction writes it.
      const planned = await planReload(db, entries);
      // Checked inside the write transaction, so two instances starting together load it once.
      const replaced = await db.tx(async (q) => {
        const current = await q.get<{ value: string }>('SELECT value FROM meta WHERE key = ?', [FINGERPRINT_KEY]);
        if (current?.value === fingerprint) return false;
        // Another instance replaced the catalog since: the plan is made again.
        const { diff } = current?.value === planned.base ? planned : await planReload(q, entries);
        if (diff) await writeCatalogDiff(q, diff, await diffWriter(q));
        else {
          await q.run('DELETE FROM skills_fts');
          await q.run('DELETE FROM skill_tools_fts');
          await q.run('DELETE FROM skills');
          await insertSkills(
            q,
            entries.map((entry, i) => ({ ...entry, rowid: i + 1, position: i + 1 })),
          );
          // Vectors of skills that left the catalog; those still present are kept (their text hash decides reuse).
          await q.run('DELETE FROM skill_embeddings WHERE skill_id NOT IN (SELECT id FROM skills)');
        }
        // Merges the index into one segment: fewer doclists to walk per query, and no entries of deleted rows left
        // to skip (they would pile up over reloads by difference).
        await q.run(`INSERT INTO skills_fts (skills_fts) VALUES ('optimize')`);
        await q.run(`INSERT INTO skill_tools_fts (skill_tools_fts) VALUES ('optimize')`);
        await q.run(
          'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
          [FINGERPRINT_KEY, fingerprint],
        );
        return true;
      });
      // After the commit: a search forgetting it meanwhile would read the previous catalog into memory again.
      if (replaced) forget();
      return replaced;
    },

    forget,

    async findByIdOrSlug(id: string, slug: string | null): Promise<Skill | undefined> {
      const row = await db.get<{ data: string }>(
        'SELECT data FROM skills WHERE id = ? OR id = ? OR slug = ? ORDER BY id IN (?, ?) DESC, position LIMIT 1',
        [id, slug, slug, id, slug],
      );
      return row && (JSON.parse(row.data) as Skill);
    },

    async getMany(ids: readonly string[]): Promise<Map<string, Skill>> {
      const out = new Map<string, Skill>();
      if (ids.length === 0) return out;
      const { dataById } = await catalog();
      for (const id of ids) {
        const data = dataById.get(id);
        if (data !== undefined) out.set(id, JSON.parse(data) as Skill);
      }
      return out;
    },

    async all(): Promise<Skill[]> {
      const rows = await db.all<{ data: string }>('SELECT data FROM skills ORDER BY position');
      return rows.map((r) => JSON.parse(r.data) as Skill);
    },

    count,

    async countBy(field: 'category' | 'type'): Promise<Record<string, number>> {
      const column = field === 'category' ? 'category' : 'type';
      const rows = await db.all<{ k: string; n: number }>(
        `SELECT ${column} AS k, COUNT(*) AS n FROM skills GROUP BY ${column} ORDER BY ${column}`,
      );
      return Object.fromEntries(rows.map((r) => [r.k, r.n]));
    },

    async lexicalSearch(text: string, filters: SkillFilters, limit: number): Promise<RankedId[]> {
      const match = await matching(text, filters);
      return match === null ? [] : (await ranked(match, filters, limit, [BM25_WEIGHTS]))[0]!;
    },

    async lexicalRankings(text: string, filters: SkillFilters, limit: number): Promise<LexicalRankings> {
      const match = await matching(text, filters);
      if (match === null) return { fields: [], flat: [], tools: [] };
      const [[fields, flat], tools] = await Promise.all([
        ranked(match, filters, limit, [BM25_WEIGHTS, FLAT_WEIGHTS]),
        toolRanking(text, filters, limit),
      ]);
      return { fields: fields!, flat: flat!, tools };
    },

    async holdsRareTerm(text: string): Promise<boolean> {
      const terms = queryTerms(text);
      if (terms.length === 0) return false;
      catalogRows ??= count();
      const [rows, df] = await Promise.all([catalogRows, Promise.all(terms.map((t) => documentFrequency(t)))]);
      return df.some((n) => n <= commonTermCutoff(rows));
    },

    async idsMatching(filters: SkillFilters): Promise<Set<string> | null> {
      const where = filterSql(filters, 's');
      if (where.params.length === 0) return null;
      const rows = await db.all<{ id: string }>(
        `SELECT s.id AS id FROM skills s WHERE 1 = 1${where.sql}`,
        where.params,
      );
      return new Set(rows.map((r) => r.id));
    },

    async embeddingSources(): Promise<EmbeddingSource[]> {
      const rows = await db.all<{
        id: string;
        name: string;
        description: string;
        tags: string;
        category: Skill['category'];
        tools: string | null;
        examples: string | null;
      }>(
        `SELECT id, data ->> '$.name' AS name, data ->> '$.description' AS description, data -> '$.tags' AS tags, category,
                data -> '$.tools' AS tools, data -> '$.examples' AS examples
           FROM skills ORDER BY position`,
      );
      return rows.map(({ tools, examples, ...r }) => ({
        ...r,
        tags: JSON.parse(r.tags) as string[],
        ...(tools !== null && { tools: JSON.parse(tools) as NonNullable<Skill['tools']> }),
        ...(examples !== null && { examples: JSON.parse(examples) as string[] }),
      }));
    },

    embeddingMatrix: (model: string, dim: number) => readEmbeddingMatrix(db, model, dim),

    saveEmbeddings: (model: string, rows: readonly StoredEmbedding[]) => saveEmbeddings(db, model, rows),
    passageVectors: (model: string, dim: number, hashes: readonly string[]) =>
      readPassageVectors(db, model, dim, hashes),
    heldPassages: (model: string, hashes: readonly string[]) => readHeldPassages(db, model, hashes),
    savePassageVectors: (model: string, rows: readonly StoredPassage[]) => savePassageVectors(db, model, rows),
    prunePassageVectors: (model: string, keep: ReadonlySet<string>, catalog: string) =>
      prunePassageVectors(db, model, keep, catalog),
  };
}

/** Skills per INSERT while writing the catalog. */
const INSERT_BATCH = 200;

/** Tool rows per INSERT into skill_tools_fts. */
const TOOL_INSERT_BATCH = 500;

/** Inserts the skills of `rows`, each under its rowid, with their FTS rows and their tools' (skill_tools_fts). */
async function insertSkills(q: Queryable, rows: ReadonlyArray<PlacedEntry & { rowid: number }>): Promise<void> {
  for (let i = 0; i < rows.length; i += INSERT_BATCH) {
    const batch = rows.slice(i, i + INSERT_BATCH);
    await q.run(
      `INSERT INTO skills (rowid, id, slug, category, type, pricing_model, position, data) VALUES ${batch
        .map(() => '(?, ?, ?, ?, ?, ?, ?, ?)')
        .join(', ')}`,
      batch.flatMap((entry) => [entry.rowid, ...skillColumns(entry)]),
    );
    await q.run(
      `INSERT INTO skills_fts (rowid, name, description, tags, category, tools) VALUES ${batch
        .map(() => '(?, ?, ?, ?, ?, ?)')
        .join(', ')}`,
      batch.flatMap(({ rowid, skill }) => [
        rowid,
        skill.name,
        skill.description,
        tagsText(skill),
        skill.category.replaceAll('-', ' '),
        toolsText(skill),
      ]),
    );
    const tools = batch.flatMap(({ rowid, skill }) =>
      (skill.tools ?? [])
        .slice(0, TOOL_ROWIDS)
        .map((t, i) => [rowid * TOOL_ROWIDS + i, toolWords(t.name), t.description] as const),
    );
    for (let j = 0; j < tools.length; j += TOOL_INSERT_BATCH) {
      const part = tools.slice(j, j + TOOL_INSERT_BATCH);
      await q.run(
        `INSERT INTO skill_tools_fts (rowid, name, description) VALUES ${part.map(() => '(?, ?, ?)').join(', ')}`,
        part.flat(),
      );
    }
  }
}

/** Ids deleted per statement. */
const REMOVE_BATCH = 500;

/**
 * Writes a reload's difference (catalog-reload.ts): skills and their FTS rows go together by rowid. Inserted skills
 * take rowids past every one stored before, so an instance still holding the previous catalog in memory finds no
 * other skill's id under a rowid it reads from the index.
 */
async function diffWriter(q: Queryable): Promise<CatalogWriter> {
  let rowid = (await q.get<{ n: number | null }>('SELECT MAX(rowid) AS n FROM skills'))?.n ?? 0;
  return {
    async remove(ids) {
      for (let i = 0; i < ids.length; i += REMOVE_BATCH) {
        const batch = ids.slice(i, i + REMOVE_BATCH);
        const marks = batch.map(() => '?').join(', ');
        await q.run(`DELETE FROM skills_fts WHERE rowid IN (SELECT rowid FROM skills WHERE id IN (${marks}))`, batch);
        // A skill's tools by their rowid range, which the index seeks.
        const listing = await q.all<{ rowid: number }>(
          `SELECT rowid FROM skills WHERE id IN (${marks}) AND json_array_length(data, '$.tools') > 0`,
          batch,
        );
        for (const { rowid } of listing)
          await q.run('DELETE FROM skill_tools_fts WHERE rowid >= ? AND rowid < ?', [
            rowid * TOOL_ROWIDS,
            (rowid + 1) * TOOL_ROWIDS,
          ]);
        await q.run(`DELETE FROM skills WHERE id IN (${marks})`, batch);
      }
    },
    insert: (rows) =>
      insertSkills(
        q,
        rows.map((row) => ({ ...row, rowid: ++rowid })),
      ),
  };
}

/** The tags field the lexical index weighs: the tags and the examples (requests worded as people ask them). */
export const tagsText = (skill: Skill): string => [skill.tags.join(' '), ...(skill.examples ?? [])].join('\n');

/** The full-text of the tools an MCP server lists: each tool's name as words, then its description. */
export const toolsText = (skill: Skill): string =>
  (skill.tools ?? []).map((t) => `${toolWords(t.name)}. ${t.description}`).join('\n');

/** Vectors of `dim` floats stored for `model`, in catalog order, quantised row by row (both dialects). */
export async function readEmbeddingMatrix(db: Queryable, model: string, dim: number): Promise<StoredMatrix> {
  const total =
    (await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM skill_embeddings WHERE model = ?', [model]))?.n ?? 0;
  // Quantised as they are read, so the float matrix of a large catalog never exists whole.
  const codes = new Int8Array(total * dim);
  const scales = new Float32Array(total);
  const ids: string[] = [];
  const textHashes: string[] = [];
  const read = (after: number) =>
    db.all<{ skill_id: string; text_hash: string; vector: Buffer; position: number }>(
      `SELECT e.skill_id, e.text_hash, e.vector, s.position FROM skill_embeddings e JOIN skills s ON s.id = e.skill_id
          WHERE e.model = ? AND s.position > ? ORDER BY s.position LIMIT ?`,
      [model, after, PAGE_ROWS],
    );
  for await (const rows of pages(read, (r) => r.position, 0)) {
    for (const r of rows) {
      // A vector of another size is skipped (recomputed); the bound guards against rows added since the count.
      if (r.vector.byteLength !== dim * 4 || ids.length === total) continue;
      // A view needs 4-byte alignment, which a driver's buffer need not have.
      const v = r.vector.byteOffset % 4 === 0 ? r.vector : Buffer.from(r.vector);
      scales[ids.length] = quantizeInto(new Float32Array(v.buffer, v.byteOffset, dim), codes, ids.length * dim);
      ids.push(r.skill_id);
      textHashes.push(r.text_hash);
    }
  }
  return {
    ids,
    textHashes,
    rows: { codes: codes.subarray(0, ids.length * dim), scales: scales.subarray(0, ids.length) },
  };
}

/** Hashes a statement looks up at once. */
const HASH_BATCH = 500;

/** Passage vectors of `dim` floats stored for `model` by text hash, for those of `hashes` held (both dialects). */
export async function readPassageVectors(
  db: Queryable,
  model: string,
  dim: number,
  hashes: readonly string[],
): Promise<Map<string, Float32Array>> {
  const out = new Map<string, Float32Array>();
  for await (const rows of passageRows<{ text_hash: string; vector: Buffer }>(db, model, 'text_hash, vector', hashes))
    for (const r of rows)
      if (r.vector.byteLength === dim * 4) out.set(r.text_hash, new Float32Array(new Uint8Array(r.vector).buffer));
  return out;
}

/** Those of `hashes` with a passage vector stored for `model`, read without the vectors (both dialects). */
export async function readHeldPassages(db: Queryable, model: string, hashes: readonly string[]): Promise<Set<string>> {
  const held = new Set<string>();
  for await (const rows of passageRows<{ text_hash: string }>(db, model, 'text_hash', hashes))
    for (const r of rows) held.add(r.text_hash);
  return held;
}

/** `columns` of the passage rows of `model` among `hashes` (each looked up once), a statement's batch at a time. */
async function* passageRows<T>(
  db: Queryable,
  model: string,
  columns: string,
  hashes: readonly string[],
): AsyncGenerator<T[]> {
  const wanted = [...new Set(hashes)];
  for (let i = 0; i < wanted.length; i += HASH_BATCH) {
    const batch = wanted.slice(i, i + HASH_BATCH);
    yield await db.all<T>(
      `SELECT ${columns} FROM passage_embeddings WHERE model = ? AND text_hash IN (${batch.map(() => '?').join(', ')})`,
      [model, ...batch],
    );
  }
}

/**
 * Deletes the passage vectors a catalog no longer wants: every other model's, and those of `model` whose hash `keep`
 * lacks (both dialects). The stored hashes are read page by page and deleted in batches, each in a transaction that
 * first checks that `catalog` is still the stored catalog's fingerprint: an instance holding an older catalog stops
 * there, deleting nothing a newer catalog wants. Returns how many rows it deleted.
 */
export async function prunePassageVectors(
  db: Transactor,
  model: string,
  keep: ReadonlySet<string>,
  catalog: string,
): Promise<number> {
  let pruned = 0;
  const read = ([m, h]: readonly [string, string]) =>
    db.all<{ model: string; text_hash: string }>(
      'SELECT model, text_hash FROM passage_embeddings WHERE (model, text_hash) > (?, ?) ORDER BY model, text_hash LIMIT ?',
      [m, h, PAGE_ROWS],
    );
  for await (const rows of pages(read, (r) => [r.model, r.text_hash] as const, ['', ''] as const)) {
    const unwanted = rows.filter((r) => r.model !== model || !keep.has(r.text_hash));
    for (const [of, hashes] of byModel(unwanted))
      for (let i = 0; i < hashes.length; i += HASH_BATCH) {
        const deleted = await deletePassagesOf(db, of, hashes.slice(i, i + HASH_BATCH), catalog);
        if (deleted === undefined) return pruned;
        pruned += deleted;
      }
  }
  return pruned;
}

/** The text hashes of `rows` by model. */
function byModel(rows: ReadonlyArray<{ model: string; text_hash: string }>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const r of rows) {
    const hashes = out.get(r.model);
    if (hashes) hashes.push(r.text_hash);
    else out.set(r.model, [r.text_hash]);
  }
  return out;
}

/**
 * Deletes the passage vectors of `model` with `hashes` in one transaction, if `catalog` is still the stored catalog's
 * fingerprint; undefined (nothing deleted) when it is not.
 */
function deletePassagesOf(
  db: Transactor,
  model: string,
  hashes: readonly string[],
  catalog: string,
): Promise<number | undefined> {
  return db.tx(async (q) => {
    const stored = await q.get<{ value: string }>('SELECT value FROM meta WHERE key = ?', [FINGERPRINT_KEY]);
    if (stored?.value !== catalog) return undefined;
    const { changes } = await q.run(
      `DELETE FROM passage_embeddings WHERE model = ? AND text_hash IN (${hashes.map(() => '?').join(', ')})`,
      [model, ...hashes],
    );
    return changes;
  });
}

/**
 * Stores passage vectors of `model` (both dialects); a hash stored already keeps its vector (the same text's). Returns
 * how many it stored: fewer than `rows` when another instance saved some of them first.
 */
export async function savePassageVectors(
  db: Transactor,
  model: string,
  rows: readonly StoredPassage[],
): Promise<number> {
  if (rows.length === 0) return 0;
  return db.tx(async (q) => {
    let stored = 0;
    for (const r of rows)
      stored += (
        await q.run(
          'INSERT INTO passage_embeddings (model, text_hash, vector) VALUES (?, ?, ?) ON CONFLICT (model, text_hash) DO NOTHING',
          [model, r.textHash, toBlob(r.vector)],
        )
      ).changes;
    return stored;
  });
}

/** Stores vectors of `model` (both dialects). */
export async function saveEmbeddings(db: Transactor, model: string, rows: readonly StoredEmbedding[]): Promise<void> {
  if (rows.length === 0) return;
  await db.tx(async (q) => {
    for (const r of rows) {
      await q.run(
        `INSERT INTO skill_embeddings (skill_id, model, text_hash, vector) VALUES (?, ?, ?, ?)
           ON CONFLICT (skill_id, model) DO UPDATE SET text_hash = excluded.text_hash, vector = excluded.vector`,
        [r.skillId, model, r.textHash, toBlob(r.vector)],
      );
    }
  });
}
