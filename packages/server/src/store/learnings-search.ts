import { queryTerms } from '../domain/query-terms.js';
import type { Queryable } from './queryable.js';
import { buildMatchExpression, commonTermCutoff, matchExpression, rankingTerms } from './fts-query.js';
import { type LearningFilters, learningFilterSql, learningsStore, VISIBLE } from './learnings.js';

export interface RankedLearning {
  id: string;
  /** BM25; larger is better. */
  score: number;
}

/** Full-text search of visible learnings; each dialect has its own (this file: SQLite FTS5). */
export interface LearningsSearch {
  /** BM25 over title, tags, body and task context of visible learnings passing the filters, best first. */
  lexical(query: string, filters: LearningFilters, limit: number): Promise<RankedLearning[]>;
  /** Whether a visible learning shares a term with `query` (no ranking: the first hit answers). */
  anyMatch(query: string): Promise<boolean>;
}

/** bm25() weights in learnings_fts column order: title, body, tags, task_context. */
export const LEXICAL_WEIGHTS = { title: 6, body: 1, tags: 3, taskContext: 2 } as const;
const WEIGHTS_SQL = [LEXICAL_WEIGHTS.title, LEXICAL_WEIGHTS.body, LEXICAL_WEIGHTS.tags, LEXICAL_WEIGHTS.taskContext];

/** How long a term's document frequency is reused: it only decides which terms select rows. */
const DF_TTL_MS = 60_000;
const MAX_DF_TERMS = 50_000;

/** The SQLite learnings search of `db`; `now` times the document frequencies it remembers. */
export function createLearningsSearch(db: Queryable, now: () => number): LearningsSearch {
  const df = new Map<string, { at: number; n: Promise<number> }>();
  const frequency = (key: string, read: () => Promise<number>): Promise<number> => {
    const t = now();
    const hit = df.get(key);
    if (hit && t - hit.at < DF_TTL_MS) return hit.n;
    if (df.size >= MAX_DF_TERMS) df.clear();
    const n = read();
    df.set(key, { at: t, n });
    n.catch(() => df.delete(key));
    return n;
  };
  const countMatching = async (match: string): Promise<number> =>
    (await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM learnings_fts WHERE learnings_fts MATCH ?', [match]))?.n ??
    0;

  /**
   * The MATCH expression: as in skill search, common terms only rank when rarer ones can select rows, so a
   * query of common words does not make FTS5 score most of the catalog; of those, terms in half the rows or
   * more (BM25's floor IDF) do not rank at all (rankingTerms).
   */
  async function matchFor(query: string): Promise<string | null> {
    const terms = queryTerms(query);
    if (terms.length < 2) return matchExpression(terms);
    const [rows, ...counts] = await Promise.all([
      frequency('\0rows', () => learningsStore.countVisible(db)),
      ...terms.map((t) => frequency(t, () => countMatching(matchExpression([t])!))),
    ]);
    const cutoff = commonTermCutoff(rows);
    const rare = terms.filter((_, i) => counts[i]! <= cutoff);
    if (rare.length === terms.length) return matchExpression(terms);
    // With no rare term, rows must hold the two least common.
    const selecting =
      rare.length > 0
        ? rare
        : terms
            .map((t, i) => ({ t, n: counts[i]! }))
            .sort((x, y) => x.n - y.n)
            .slice(0, 2)
            .map((x) => x.t);
    const ranking = matchExpression(rankingTerms(terms, counts, rows, selecting));
    return rare.length > 0
      ? `(${matchExpression(rare)}) AND (${ranking})`
      : `(${selecting.map((t) => matchExpression([t])).join(' AND ')}) AND (${ranking})`;
  }

  return {
    /**
     * CROSS JOIN keeps the full-text match as the outer loop: as a plain join SQLite probed the index once
     * per learning.
     */
    async lexical(query, filters, limit) {
      const match = await matchFor(query);
      if (match === null) return [];
      const { sql, params } = learningFilterSql(filters, 'l');
      // Unfiltered, the index alone ranks (it holds visible learnings only, migration 140) and only the
      // best `limit` rows are looked up: a lookup in learnings per matched row cost more than the ranking.
      if (!sql)
        return db.all<RankedLearning>(
          `SELECT l.id AS id, f.score AS score
           FROM (SELECT rowid, -bm25(learnings_fts, ${WEIGHTS_SQL.join(', ')}) AS score FROM learnings_fts
                 WHERE learnings_fts MATCH ? ORDER BY score DESC LIMIT ?) f
           CROSS JOIN learnings l ON l.seq = f.rowid
           WHERE l.${VISIBLE}
           ORDER BY f.score DESC`,
          [match, limit],
        );
      return db.all<RankedLearning>(
        `SELECT l.id AS id, -bm25(learnings_fts, ${WEIGHTS_SQL.join(', ')}) AS score
         FROM learnings_fts CROSS JOIN learnings l ON l.seq = learnings_fts.rowid
         WHERE learnings_fts MATCH ? AND l.${VISIBLE}${sql}
         ORDER BY bm25(learnings_fts, ${WEIGHTS_SQL.join(', ')}) LIMIT ?`,
        [match, ...params, limit],
      );
    },
    async anyMatch(query) {
      const match = buildMatchExpression(query);
      if (match === null) return false;
      return (
        (await db.get('SELECT 1 AS x FROM learnings_fts WHERE learnings_fts MATCH ? LIMIT 1', [match])) !== undefined
      );
    },
  };
}
