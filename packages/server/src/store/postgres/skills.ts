import type { Skill } from '@axle/sdk';
import {
  type CatalogEntry,
  type EmbeddingSource,
  filterSql,
  prunePassageVectors,
  type RankedId,
  readEmbeddingMatrix,
  readHeldPassages,
  readPassageVectors,
  saveEmbeddings,
  savePassageVectors,
  type SkillsStore,
  TOOL_WEIGHTS,
  tagsText,
  toolsText,
} from '../skills.js';
import { PAGE_ROWS, pages } from '../pages.js';
import {
  type CatalogWriter,
  FINGERPRINT_KEY,
  type PlacedEntry,
  planReload,
  skillColumns,
  writeCatalogDiff,
} from '../catalog-reload.js';
import type { Params, Queryable } from '../queryable.js';
import { toolWords } from '../../domain/tool-words.js';
import { bm25Search } from './bm25.js';
import type { PostgresDatabase } from './db.js';

/**
 * Weight classes of the skills' tsvector, as SQLite's bm25() column weights: name, tags with the examples (tagsText),
 * description, and category with the tools an MCP server lists (a tsvector has four classes; SQLite weighs those two
 * 2 and 1).
 */
const WEIGHTS = { A: 10, B: 6, C: 2, D: 2 };
/** The flat ranking's classes: the record as one text (on SQLite every column weighs 1). */
const FLAT_WEIGHTS = { A: 1, B: 1, C: 1, D: 1 };
/** A tool's classes (SQLite's TOOL_WEIGHTS): its name as words, its description. */
const TOOL_CLASSES = { A: TOOL_WEIGHTS[0], B: TOOL_WEIGHTS[1], C: 0, D: 0 };

/** Serialises catalog imports of instances starting together. */
const CATALOG_LOCK = 'axle:catalog';
/** Rows per INSERT while importing the catalog. */
const IMPORT_BATCH = 200;
/** Tool rows per INSERT. */
const TOOL_IMPORT_BATCH = 500;

/**
 * The skills store on PostgreSQL: the catalog's JSON by id is kept in memory between searches, as on
 * SQLite; search is BM25 over the tsvector's postings, skill_terms (and the tools', skill_tool_terms), written
 * with the catalog and read into memory once per catalog (bm25.ts, resident), so an unfiltered search asks the
 * database at most for the lexemes of a text it has not seen.
 */
export function createPostgresSkillsStore(db: PostgresDatabase, now: () => number = Date.now): SkillsStore {
  const bm25 = bm25Search(
    db,
    {
      table: 'skills',
      postings: 'skill_terms',
      visible: 'TRUE',
      weights: WEIGHTS,
      floorLexemesRank: true,
      resident: true,
    },
    now,
  );
  // Each tool its own document; filters read its skill's columns (skill_tool_docs, migration 390).
  const toolsBm25 = bm25Search(
    db,
    {
      table: 'skill_tool_docs',
      postings: 'skill_tool_terms',
      visible: 'TRUE',
      weights: TOOL_CLASSES,
      floorLexemesRank: true,
      resident: true,
    },
    now,
  );
  /** Each skill's JSON and position by id. */
  let inMemory: Promise<{ dataById: Map<string, string>; positions: Map<string, number> }> | undefined;

  function catalog(): Promise<{ dataById: Map<string, string>; positions: Map<string, number> }> {
    if (!inMemory) {
      inMemory = (async () => {
        const dataById = new Map<string, string>();
        const positions = new Map<string, number>();
        const read = (after: number) =>
          db.all<{ position: number; id: string; data: string }>(
            'SELECT position, id, data FROM skills WHERE position > ? ORDER BY position LIMIT ?',
            [after, PAGE_ROWS],
          );
        for await (const rows of pages(read, (r) => r.position, 0))
          for (const r of rows) {
            dataById.set(r.id, r.data);
            positions.set(r.id, r.position);
          }
        return { dataById, positions };
      })();
      inMemory.catch(() => (inMemory = undefined));
    }
    return inMemory;
  }

  /**
   * The skills passing `filter` whose tools match `text`, each by its best tool's BM25, best first, ties by catalog
   * position, at most `limit`. Every matching tool is scored, so a server's many tools cannot crowd out the others.
   * Without filters, a text of terms common among the tools only ranks nothing, as on SQLite.
   */
  async function toolRanking(
    text: string,
    filter: { sql: string; params: Params },
    limit: number,
  ): Promise<RankedId[]> {
    if (filter.sql === '' && !(await toolsBm25.holdsRareLexeme(text))) return [];
    const [hits, { positions }] = await Promise.all([toolsBm25.search(text, filter, Infinity), catalog()]);
    const best = new Map<string, number>();
    for (const { id, score } of hits) {
      // A tool's id is its skill's, ':' and its index; hits come best first, so a skill's first is its best.
      const skill = id.slice(0, id.lastIndexOf(':'));
      if (!best.has(skill)) best.set(skill, score);
    }
    return [...best]
      .map(([id, score]) => ({ id, score }))
      .sort((a, b) => b.score - a.score || positions.get(a.id)! - positions.get(b.id)!)
      .slice(0, limit);
  }

  const forget = () => {
    bm25.reset();
    toolsBm25.reset();
    inMemory = undefined;
  };

  return {
    async catalogFingerprint() {
      return (await db.get<{ value: string }>('SELECT value FROM meta WHERE key = ?', [FINGERPRINT_KEY]))?.value;
    },

    async replaceCatalog(entries: CatalogEntry[], fingerprint: string) {
      // Worked out before the transaction, so it holds the catalog lock only while it writes.
      const planned = await planReload(db, entries);
      const replaced = await db.tx(async (q) => {
        await q.lock(CATALOG_LOCK);
        const current = await q.get<{ value: string }>('SELECT value FROM meta WHERE key = ?', [FINGERPRINT_KEY]);
        if (current?.value === fingerprint) return false;
        // Another instance replaced the catalog since: the plan is made again.
        const { diff } = current?.value === planned.base ? planned : await planReload(q, entries);
        if (diff) await writeCatalogDiff(q, diff, diffWriter(q));
        else {
          await q.run('DELETE FROM skill_terms');
          await q.run('DELETE FROM skill_tool_terms');
          await q.run('DELETE FROM skill_tools');
          await q.run('DELETE FROM skills');
          await insertSkills(
            q,
            entries.map((entry, i) => ({ ...entry, position: i + 1 })),
          );
          await indexSkills(q);
          // Statistics of the new postings at once, so the first searches are planned on them.
          await q.run('ANALYZE skill_terms');
          await q.run('ANALYZE skill_tool_terms');
          // Vectors of skills that left the catalog; those still present are kept (their text hash decides reuse).
          await q.run('DELETE FROM skill_embeddings WHERE skill_id NOT IN (SELECT id FROM skills)');
        }
        await q.run(
          'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
          [FINGERPRINT_KEY, fingerprint],
        );
        return true;
      });
      if (replaced) forget();
      return replaced;
    },

    forget,

    async findByIdOrSlug(id: string, slug: string | null) {
      const row = await db.get<{ data: string }>(
        'SELECT data FROM skills WHERE id = ? OR id = ? OR slug = ? ORDER BY id IN (?, ?) DESC, position LIMIT 1',
        [id, slug, slug, id, slug],
      );
      return row && (JSON.parse(row.data) as Skill);
    },

    async getMany(ids: readonly string[]) {
      const out = new Map<string, Skill>();
      if (ids.length === 0) return out;
      const data = (await catalog()).dataById;
      for (const id of ids) {
        const d = data.get(id);
        if (d !== undefined) out.set(id, JSON.parse(d) as Skill);
      }
      return out;
    },

    async all() {
      const rows = await db.all<{ data: string }>('SELECT data FROM skills ORDER BY position');
      return rows.map((r) => JSON.parse(r.data) as Skill);
    },

    async count() {
      return (await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM skills'))?.n ?? 0;
    },

    async countBy(field: 'category' | 'type') {
      const column = field === 'category' ? 'category' : 'type';
      const rows = await db.all<{ k: string; n: number }>(
        `SELECT ${column} AS k, COUNT(*) AS n FROM skills GROUP BY ${column} ORDER BY ${column}`,
      );
      return Object.fromEntries(rows.map((r) => [r.k, r.n]));
    },

    lexicalSearch: (text, filters, limit) => bm25.search(text, filterSql(filters, 'd'), limit),

    holdsRareTerm: (text) => bm25.holdsRareLexeme(text),

    async lexicalRankings(text, filters, limit) {
      const filter = filterSql(filters, 'd');
      const [[fields, flat], tools] = await Promise.all([
        bm25.rankings(text, filter, limit, [WEIGHTS, FLAT_WEIGHTS]),
        toolRanking(text, filter, limit),
      ]);
      return { fields: fields!, flat: flat!, tools };
    },

    async idsMatching(filters) {
      const where = filterSql(filters, 's');
      if (where.params.length === 0) return null;
      const rows = await db.all<{ id: string }>(`SELECT s.id AS id FROM skills s WHERE TRUE${where.sql}`, where.params);
      return new Set(rows.map((r) => r.id));
    },

    async embeddingSources(): Promise<EmbeddingSource[]> {
      const rows = await db.all<{ data: string }>('SELECT data FROM skills ORDER BY position');
      return rows.map((r) => {
        const { id, name, description, tags, category, tools, examples } = JSON.parse(r.data) as Skill;
        return { id, name, description, tags, category, ...(tools && { tools }), ...(examples && { examples }) };
      });
    },

    embeddingMatrix: (model, dim) => readEmbeddingMatrix(db, model, dim),
    saveEmbeddings: (model, rows) => saveEmbeddings(db, model, rows),
    passageVectors: (model, dim, hashes) => readPassageVectors(db, model, dim, hashes),
    heldPassages: (model, hashes) => readHeldPassages(db, model, hashes),
    savePassageVectors: (model, rows) => savePassageVectors(db, model, rows),
    prunePassageVectors: (model, keep, catalog) => prunePassageVectors(db, model, keep, catalog),
  };
}

/**
 * Inserts the skills of `rows` with their tsvectors, and their tools' (skill_tools); indexSkills then fills their
 * lengths and postings.
 */
async function insertSkills(q: Queryable, rows: readonly PlacedEntry[]): Promise<void> {
  for (let i = 0; i < rows.length; i += IMPORT_BATCH) {
    const batch = rows.slice(i, i + IMPORT_BATCH);
    await q.run(
      `INSERT INTO skills (id, slug, category, type, pricing_model, position, data, fts) VALUES ${batch
        .map(
          () =>
            "(?, ?, ?, ?, ?, ?, ?, setweight(to_tsvector('axle', axle_words(?)), 'A') || setweight(to_tsvector('axle', axle_words(?)), 'B') || setweight(to_tsvector('axle', axle_words(?)), 'C') || setweight(to_tsvector('axle', axle_words(?)), 'D'))",
        )
        .join(', ')}`,
      batch.flatMap((entry) => [
        ...skillColumns(entry),
        entry.skill.name,
        tagsText(entry.skill),
        entry.skill.description,
        `${entry.skill.category.replaceAll('-', ' ')}\n${toolsText(entry.skill)}`,
      ]),
    );
    const tools = batch.flatMap(({ skill }) =>
      (skill.tools ?? []).map((t, i) => [`${skill.id}:${i}`, skill.id, toolWords(t.name), t.description]),
    );
    for (let j = 0; j < tools.length; j += TOOL_IMPORT_BATCH) {
      const part = tools.slice(j, j + TOOL_IMPORT_BATCH);
      await q.run(
        `INSERT INTO skill_tools (id, skill_id, fts) VALUES ${part
          .map(
            () =>
              "(?, ?, setweight(to_tsvector('axle', axle_words(?)), 'A') || setweight(to_tsvector('axle', axle_words(?)), 'B'))",
          )
          .join(', ')}`,
        part.flat(),
      );
    }
  }
}

/**
 * The token counts and postings of the skills of `ids` (every skill when unset) and of their tools, from their
 * tsvectors.
 */
async function indexSkills(q: Queryable, ids?: readonly string[]): Promise<void> {
  await indexDocuments(q, { table: 'skills', postings: 'skill_terms', skillColumn: 'id' }, ids);
  await indexDocuments(q, { table: 'skill_tools', postings: 'skill_tool_terms', skillColumn: 'skill_id' }, ids);
}

/** The token counts and postings of `table`'s documents whose `skillColumn` is one of `ids` (every one when unset). */
async function indexDocuments(
  q: Queryable,
  { table, postings, skillColumn }: { table: string; postings: string; skillColumn: string },
  ids?: readonly string[],
): Promise<void> {
  const where = ids === undefined ? '' : ` WHERE d.${skillColumn} = ANY(?::text[])`;
  const params = ids === undefined ? [] : [ids];
  await q.run(
    `UPDATE ${table} d SET fts_len = (SELECT COALESCE(SUM(array_length(positions, 1)), 0) FROM unnest(d.fts))${where}`,
    params,
  );
  await q.run(
    `INSERT INTO ${postings} (lexeme, doc, len, a, b, c, d)
     SELECT p.lexeme, d.id, d.fts_len, p.a, p.b, p.c, p.d FROM ${table} d CROSS JOIN LATERAL axle_postings(d.fts) p${where}`,
    params,
  );
}

/**
 * Writes a reload's difference (catalog-reload.ts). A skill's postings, and its tools', are deleted through the
 * lexemes of their stored tsvectors, so each is found by the postings' (lexeme, doc) key.
 */
const diffWriter = (q: Queryable): CatalogWriter => ({
  async remove(ids) {
    await q.run(
      `DELETE FROM skill_terms t USING skills s CROSS JOIN LATERAL unnest(s.fts) u
        WHERE s.id = ANY(?::text[]) AND t.lexeme = u.lexeme AND t.doc = s.id`,
      [ids],
    );
    await q.run(
      `DELETE FROM skill_tool_terms p USING skill_tools t CROSS JOIN LATERAL unnest(t.fts) u
        WHERE t.skill_id = ANY(?::text[]) AND p.lexeme = u.lexeme AND p.doc = t.id`,
      [ids],
    );
    await q.run('DELETE FROM skill_tools WHERE skill_id = ANY(?::text[])', [ids]);
    await q.run('DELETE FROM skills WHERE id = ANY(?::text[])', [ids]);
  },
  async insert(rows) {
    await insertSkills(q, rows);
    await indexSkills(
      q,
      rows.map((r) => r.skill.id),
    );
  },
});
