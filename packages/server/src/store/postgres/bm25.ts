// BM25 over weighted tsvectors, the formula SQLite's FTS5 bm25() uses, so both dialects rank alike.
// A document's fields are its tsvector's weight classes A-D; a class's weight multiplies the term
// frequency in it (as FTS5's per-column weights do). Candidates come from the GIN index; document
// frequencies, the document count and the average length are read from the database and kept for a
// minute (they only shift the ranking as the corpus grows).
import { COMMON_TERM_MIN_ROWS, COMMON_TERM_SHARE, queryTerms, rankingTerms } from '../fts-query.js';
import type { Params, Queryable } from '../queryable.js';

const K1 = 1.2;
const B = 0.75;
const STATS_TTL_MS = 60_000;
const MAX_DF_TERMS = 50_000;

export interface WeightClasses {
  A: number;
  B: number;
  C: number;
  D: number;
}

export interface Bm25Corpus {
  /** Table holding `fts` (tsvector), `fts_len` (tokens) and the id column `id`. */
  table: string;
  /** SQL predicate (on alias `d`) of the documents searched, e.g. "d.status = 'approved'". */
  visible: string;
  weights: WeightClasses;
  /**
   * Whether lexemes in half the documents or more (BM25's floor IDF) rank when rarer ones select the
   * candidates; the learnings search leaves them out, as its SQLite twin does (rankingTerms).
   */
  floorLexemesRank: boolean;
}

export interface Bm25Hit {
  id: string;
  score: number;
}

/** A tsquery literal OR-ing `lexemes` (quoted, so no lexeme is read as tsquery syntax). */
export const orQuery = (lexemes: readonly string[]): string =>
  lexemes.map((l) => `'${l.replaceAll("'", "''").replaceAll('\\', '\\\\')}'`).join(' | ');

/** BM25 search over one corpus of `db`; `now` times the statistics it keeps. */
export function bm25Search(db: Queryable, corpus: Bm25Corpus, now: () => number) {
  let stats: { at: number; value: Promise<{ n: number; avgdl: number }> } | undefined;
  let df = new Map<string, { at: number; n: Promise<number> }>();

  function corpusStats(): Promise<{ n: number; avgdl: number }> {
    const t = now();
    if (stats && t - stats.at < STATS_TTL_MS) return stats.value;
    const value = db
      .get<{ n: number; avgdl: number | null }>(
        `SELECT COUNT(*) AS n, AVG(d.fts_len)::float8 AS avgdl FROM ${corpus.table} d WHERE ${corpus.visible}`,
      )
      .then((r) => ({ n: r?.n ?? 0, avgdl: r?.avgdl ?? 0 }));
    stats = { at: t, value };
    value.catch(() => (stats = undefined));
    return value;
  }

  function frequency(lexeme: string): Promise<number> {
    const t = now();
    const hit = df.get(lexeme);
    if (hit && t - hit.at < STATS_TTL_MS) return hit.n;
    if (df.size >= MAX_DF_TERMS) df = new Map();
    const n = db
      .get<{ n: number }>(
        `SELECT COUNT(*) AS n FROM ${corpus.table} d WHERE d.fts @@ ?::tsquery AND ${corpus.visible}`,
        [orQuery([lexeme])],
      )
      .then((r) => r?.n ?? 0);
    df.set(lexeme, { at: t, n });
    n.catch(() => df.delete(lexeme));
    return n;
  }

  /** The query's stemmed lexemes (the schema's `axle` configuration, as the documents were indexed). */
  async function lexemesOf(text: string): Promise<string[]> {
    const terms = queryTerms(text);
    if (terms.length === 0) return [];
    const rows = await db.all<{ lexeme: string }>(
      "SELECT DISTINCT lexeme FROM unnest(to_tsvector('axle', axle_words(?))) ORDER BY lexeme",
      [terms.join(' ')],
    );
    return rows.map((r) => r.lexeme);
  }

  /**
   * The tsquery selecting candidates: as on SQLite (selectiveMatchExpression), common lexemes only rank
   * when rarer ones can select rows, and a query of common lexemes only must hold its two least common.
   * `selectors` are the lexemes that select, when not all of them do.
   */
  function selecting(
    lexemes: string[],
    counts: number[],
    n: number,
    filtered: boolean,
  ): { query: string; selectors?: string[] } {
    if (filtered || lexemes.length < 2) return { query: orQuery(lexemes) };
    const cutoff = Math.max(n * COMMON_TERM_SHARE, COMMON_TERM_MIN_ROWS);
    const rare = lexemes.filter((_, i) => counts[i]! <= cutoff);
    if (rare.length === lexemes.length) return { query: orQuery(lexemes) };
    if (rare.length > 0) return { query: orQuery(rare), selectors: rare };
    const [a, b] = lexemes.map((l, i) => ({ l, n: counts[i]! })).sort((x, y) => x.n - y.n);
    return { query: `(${orQuery([a!.l])}) & (${orQuery([b!.l])})`, selectors: [a!.l, b!.l] };
  }

  async function rankings(
    text: string,
    filter: { sql: string; params: Params },
    limit: number,
    weightings: readonly WeightClasses[],
  ): Promise<Bm25Hit[][]> {
    const lexemes = await lexemesOf(text);
    if (lexemes.length === 0) return weightings.map(() => []);
    const [{ n, avgdl }, counts] = await Promise.all([corpusStats(), Promise.all(lexemes.map(frequency))]);
    const { query, selectors } = selecting(lexemes, counts, n, filter.sql !== '');
    const ranked = selectors && !corpus.floorLexemesRank ? rankingTerms(lexemes, counts, n, selectors) : lexemes;
    const rows = await db.all<{ id: string; len: number; lexeme: string; weights: string[] }>(
      `SELECT d.id AS id, d.fts_len AS len, u.lexeme AS lexeme, u.weights::text[] AS weights
         FROM ${corpus.table} d CROSS JOIN LATERAL unnest(d.fts) u
        WHERE d.fts @@ ?::tsquery AND ${corpus.visible}${filter.sql} AND u.lexeme = ANY(?::text[])`,
      [query, ...filter.params, ranked],
    );
    const idf = new Map(
      lexemes.map((l, i) => {
        const v = Math.log((n - counts[i]! + 0.5) / (counts[i]! + 0.5));
        return [l, v > 0 ? v : 1e-6];
      }),
    );
    return weightings.map((weights) => {
      const scores = new Map<string, number>();
      for (const r of rows) {
        let tf = 0;
        for (const w of r.weights) tf += weights[w as keyof WeightClasses] ?? 0;
        const norm = K1 * (1 - B + (B * r.len) / (avgdl || 1));
        scores.set(r.id, (scores.get(r.id) ?? 0) + (idf.get(r.lexeme) ?? 0) * ((tf * (K1 + 1)) / (tf + norm)));
      }
      return [...scores]
        .map(([id, score]) => ({ id, score }))
        .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
        .slice(0, limit);
    });
  }

  return {
    lexemesOf,
    /** Whether a searched document holds any lexeme of `text`. */
    async anyMatch(text: string): Promise<boolean> {
      const lexemes = await lexemesOf(text);
      if (lexemes.length === 0) return false;
      return (
        (await db.get(`SELECT 1 AS x FROM ${corpus.table} d WHERE d.fts @@ ?::tsquery AND ${corpus.visible} LIMIT 1`, [
          orQuery(lexemes),
        ])) !== undefined
      );
    },

    /** Documents passing `filter` (SQL on alias d, each clause preceded by AND) ranked by BM25, best first. */
    async search(text: string, filter: { sql: string; params: Params }, limit: number): Promise<Bm25Hit[]> {
      return (await rankings(text, filter, limit, [corpus.weights]))[0]!;
    },

    /** The same matches ranked once per weighting of the classes (one read of the rows). */
    rankings,

    /** Forgets the statistics (the corpus was replaced). */
    reset(): void {
      stats = undefined;
      df = new Map();
    },
  };
}
