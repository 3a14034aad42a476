// BM25 over weighted tsvectors, the formula SQLite's FTS5 bm25() uses, so both dialects rank alike.
// A document's fields are its tsvector's weight classes A-D; a class's weight multiplies the term
// frequency in it (as FTS5's per-column weights do). Candidates and their term frequencies come from the
// corpus's postings table (migration 175: per lexeme and document the occurrences per class and the
// document's length), read from its (lexeme, doc) index; document frequencies, the document count and
// the average length are read from the database and kept for a minute (they only shift the ranking as
// the corpus grows). A corpus that changes only by replacement (the skills catalog) is read whole once and
// searched in memory until reset(), so an unfiltered search sends the database nothing.
import { queryTerms } from '../../domain/query-terms.js';
import { commonTermCutoff, rankingTerms } from '../fts-query.js';
import type { Params, Queryable } from '../queryable.js';

const K1 = 1.2;
const B = 0.75;
const STATS_TTL_MS = 60_000;
const MAX_DF_TERMS = 50_000;
/** Query texts whose lexemes are remembered (the most recently used). */
const MAX_CACHED_QUERIES = 10_000;

export interface WeightClasses {
  A: number;
  B: number;
  C: number;
  D: number;
}

export interface Bm25Corpus {
  /** Table holding `fts` (tsvector), `fts_len` (tokens) and the id column `id`. */
  table: string;
  /** Its postings (lexeme, doc = id, len, a, b, c, d), holding the terms of exactly the searched documents. */
  postings: string;
  /** SQL predicate (on alias `d`) of the documents searched, e.g. "d.status = 'approved'". */
  visible: string;
  weights: WeightClasses;
  /**
   * Whether lexemes in half the documents or more (BM25's floor IDF) rank when rarer ones select the
   * candidates; the learnings search leaves them out, as its SQLite twin does (rankingTerms).
   */
  floorLexemesRank: boolean;
  /**
   * Whether the corpus changes only by a replacement followed by reset(): its postings and statistics are then
   * read once and kept in memory (small beside the vectors), and unfiltered searches, document frequencies and
   * anyMatch are answered from them.
   */
  resident?: boolean;
}

/** A document's occurrences of a lexeme per weight class. */
interface Posting {
  id: string;
  len: number;
  lexeme: string;
  a: number;
  b: number;
  c: number;
  d: number;
}

/** Postings visited one by one (a resident corpus's are not made into objects). */
type Postings = (
  visit: (id: string, len: number, lexeme: string, a: number, b: number, c: number, d: number) => void,
) => void;

export interface Bm25Hit {
  id: string;
  score: number;
}

/** Postings read per statement while loading a resident corpus. */
const RESIDENT_PAGE_ROWS = 10_000;

/** A resident corpus: its statistics, and per lexeme its postings as (document number, a, b, c, d) runs of 5. */
interface Resident {
  n: number;
  avgdl: number;
  ids: string[];
  lens: number[];
  lists: Map<string, Int32Array>;
}

/** Per database, the lexemes of recent query texts (most recently used last), shared by its corpora. */
const lexemeCaches = new WeakMap<Queryable, Map<string, Promise<string[]>>>();

/**
 * A query's stemmed lexemes (the schema's `axle` configuration, as the documents were indexed), by the query's
 * terms. The configuration is fixed once migrated, so lexemes are remembered per text: a repeated query, or the
 * same query searched in skills and learnings at once, asks the database once.
 */
function queryLexemes(db: Queryable, text: string): Promise<string[]> {
  const terms = queryTerms(text);
  if (terms.length === 0) return Promise.resolve([]);
  const key = terms.join(' ');
  let cache = lexemeCaches.get(db);
  if (!cache) {
    cache = new Map();
    lexemeCaches.set(db, cache);
  }
  const hit = cache.get(key);
  if (hit) {
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const lexemes = db
    .all<{ lexeme: string }>("SELECT DISTINCT lexeme FROM unnest(to_tsvector('axle', axle_words(?))) ORDER BY lexeme", [
      key,
    ])
    .then((rows) => rows.map((r) => r.lexeme));
  lexemes.catch(() => cache.delete(key));
  cache.set(key, lexemes);
  if (cache.size > MAX_CACHED_QUERIES) cache.delete(cache.keys().next().value!);
  return lexemes;
}

/** BM25 search over one corpus of `db`; `now` times the statistics it keeps. */
export function bm25Search(db: Queryable, corpus: Bm25Corpus, now: () => number) {
  let stats: { at: number; value: Promise<{ n: number; avgdl: number }> } | undefined;
  let df = new Map<string, { at: number; n: Promise<number> }>();
  let resident: Promise<Resident> | undefined;

  const readStats = () =>
    db
      .get<{ n: number; avgdl: number | null }>(
        `SELECT COUNT(*) AS n, AVG(d.fts_len)::float8 AS avgdl FROM ${corpus.table} d WHERE ${corpus.visible}`,
      )
      .then((r) => ({ n: r?.n ?? 0, avgdl: r?.avgdl ?? 0 }));

  /** The whole corpus, read once (in the postings index's order) and kept until reset(). */
  function residentCorpus(): Promise<Resident> {
    if (resident) return resident;
    const loading = (async (): Promise<Resident> => {
      const { n, avgdl } = await readStats();
      const number = new Map<string, number>();
      const ids: string[] = [];
      const lens: number[] = [];
      const runs = new Map<string, number[]>();
      let after = ['', ''];
      for (;;) {
        const rows = await db.all<Posting>(
          `SELECT t.lexeme AS lexeme, t.doc AS id, t.len AS len, t.a AS a, t.b AS b, t.c AS c, t.d AS d
            FROM ${corpus.postings} t WHERE (t.lexeme, t.doc) > (?, ?) ORDER BY t.lexeme, t.doc LIMIT ?`,
          [...after, RESIDENT_PAGE_ROWS],
        );
        for (const r of rows) {
          let doc = number.get(r.id);
          if (doc === undefined) {
            doc = ids.length;
            number.set(r.id, doc);
            ids.push(r.id);
            lens.push(r.len);
          }
          const run = runs.get(r.lexeme) ?? [];
          if (run.length === 0) runs.set(r.lexeme, run);
          run.push(doc, r.a, r.b, r.c, r.d);
        }
        if (rows.length < RESIDENT_PAGE_ROWS) break;
        const last = rows[rows.length - 1]!;
        after = [last.lexeme, last.id];
      }
      const lists = new Map<string, Int32Array>();
      for (const [lexeme, run] of runs) lists.set(lexeme, Int32Array.from(run));
      return { n, avgdl, ids, lens, lists };
    })();
    resident = loading;
    loading.catch(() => {
      if (resident === loading) resident = undefined;
    });
    return loading;
  }

  function corpusStats(): Promise<{ n: number; avgdl: number }> {
    if (corpus.resident) return residentCorpus();
    const t = now();
    if (stats && t - stats.at < STATS_TTL_MS) return stats.value;
    const value = readStats();
    stats = { at: t, value };
    value.catch(() => (stats = undefined));
    return value;
  }

  function frequency(lexeme: string): Promise<number> {
    if (corpus.resident) return residentCorpus().then((r) => (r.lists.get(lexeme)?.length ?? 0) / 5);
    const t = now();
    const hit = df.get(lexeme);
    if (hit && t - hit.at < STATS_TTL_MS) return hit.n;
    if (df.size >= MAX_DF_TERMS) df = new Map();
    const n = db
      .get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${corpus.postings} WHERE lexeme = ?`, [lexeme])
      .then((r) => r?.n ?? 0);
    df.set(lexeme, { at: t, n });
    n.catch(() => df.delete(lexeme));
    return n;
  }

  const lexemesOf = (text: string) => queryLexemes(db, text);

  /**
   * The lexemes selecting candidates: as on SQLite (selectiveMatchExpression), common lexemes only rank
   * when rarer ones can select rows, and a query of common lexemes only must hold its two least common
   * (`every`). None when every lexeme selects.
   */
  function selecting(
    lexemes: string[],
    counts: number[],
    n: number,
    filtered: boolean,
  ): { selectors: string[]; every: boolean } | undefined {
    if (filtered || lexemes.length < 2) return undefined;
    const cutoff = commonTermCutoff(n);
    const rare = lexemes.filter((_, i) => counts[i]! <= cutoff);
    if (rare.length === lexemes.length) return undefined;
    if (rare.length > 0) return { selectors: rare, every: false };
    const [a, b] = lexemes.map((l, i) => ({ l, n: counts[i]! })).sort((x, y) => x.n - y.n);
    return { selectors: [a!.l, b!.l], every: true };
  }

  /** postingsOf, unfiltered, from a resident corpus: the rows the statement would give, visited in place. */
  function residentPostings(
    r: Resident,
    ranked: string[],
    selection: { selectors: string[]; every: boolean } | undefined,
  ): Postings {
    let candidates: Set<number> | undefined;
    if (selection) {
      const held = new Map<number, number>();
      for (const lexeme of selection.selectors) {
        const list = r.lists.get(lexeme);
        if (list) for (let i = 0; i < list.length; i += 5) held.set(list[i]!, (held.get(list[i]!) ?? 0) + 1);
      }
      const needed = selection.every ? selection.selectors.length : 1;
      candidates = new Set();
      for (const [doc, k] of held) if (k >= needed) candidates.add(doc);
    }
    return (visit) => {
      for (const lexeme of ranked) {
        const list = r.lists.get(lexeme);
        if (!list) continue;
        for (let i = 0; i < list.length; i += 5) {
          const doc = list[i]!;
          if (candidates && !candidates.has(doc)) continue;
          visit(r.ids[doc]!, r.lens[doc]!, lexeme, list[i + 1]!, list[i + 2]!, list[i + 3]!, list[i + 4]!);
        }
      }
    };
  }

  /**
   * The postings of `ranked` in the candidates: documents holding a selector (every one), or any ranked
   * lexeme; filters join the documents.
   */
  async function postingsOf(
    ranked: string[],
    selection: { selectors: string[]; every: boolean } | undefined,
    filter: { sql: string; params: Params },
  ): Promise<Postings> {
    if (corpus.resident && filter.sql === '') return residentPostings(await residentCorpus(), ranked, selection);
    const rows = await postingRows(ranked, selection, filter);
    return (visit) => {
      for (const p of rows) visit(p.id, p.len, p.lexeme, p.a, p.b, p.c, p.d);
    };
  }

  function postingRows(
    ranked: string[],
    selection: { selectors: string[]; every: boolean } | undefined,
    filter: { sql: string; params: Params },
  ): Promise<Posting[]> {
    const columns = 'SELECT t.doc AS id, t.len AS len, t.lexeme AS lexeme, t.a AS a, t.b AS b, t.c AS c, t.d AS d';
    if (filter.sql !== '')
      return db.all<Posting>(
        `${columns} FROM ${corpus.postings} t JOIN ${corpus.table} d ON d.id = t.doc
          WHERE t.lexeme = ANY(?::text[]) AND ${corpus.visible}${filter.sql}`,
        [ranked, ...filter.params],
      );
    if (!selection)
      return db.all<Posting>(`${columns} FROM ${corpus.postings} t WHERE t.lexeme = ANY(?::text[])`, [ranked]);
    const { selectors, every } = selection;
    return db.all<Posting>(
      `${columns} FROM ${corpus.postings} t WHERE t.lexeme = ANY(?::text[]) AND t.doc IN (SELECT s.doc FROM ${corpus.postings} s
        WHERE s.lexeme = ANY(?::text[])${every ? ' GROUP BY s.doc HAVING COUNT(*) = ?' : ''})`,
      every ? [ranked, selectors, selectors.length] : [ranked, selectors],
    );
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
    const selection = selecting(lexemes, counts, n, filter.sql !== '');
    const ranked =
      selection && !corpus.floorLexemesRank ? rankingTerms(lexemes, counts, n, selection.selectors) : lexemes;
    const postings = await postingsOf(ranked, selection, filter);
    const idf = new Map(
      lexemes.map((l, i) => {
        const v = Math.log((n - counts[i]! + 0.5) / (counts[i]! + 0.5));
        return [l, v > 0 ? v : 1e-6];
      }),
    );
    return weightings.map((weights) => {
      const scores = new Map<string, number>();
      postings((id, len, lexeme, a, b, c, d) => {
        const tf = a * weights.A + b * weights.B + c * weights.C + d * weights.D;
        const norm = K1 * (1 - B + (B * len) / (avgdl || 1));
        scores.set(id, (scores.get(id) ?? 0) + (idf.get(lexeme) ?? 0) * ((tf * (K1 + 1)) / (tf + norm)));
      });
      return [...scores]
        .map(([id, score]) => ({ id, score }))
        .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
        .slice(0, limit);
    });
  }

  return {
    /**
     * Whether a searched document holds any lexeme of `text`: one index probe per lexeme. (As `lexeme = ANY(...)
     * LIMIT 1` the planner may pick a scan of the whole table, which reads every posting when nothing matches.)
     */
    async anyMatch(text: string): Promise<boolean> {
      const lexemes = await lexemesOf(text);
      if (lexemes.length === 0) return false;
      if (corpus.resident) {
        const { lists } = await residentCorpus();
        return lexemes.some((l) => lists.has(l));
      }
      return (
        (await db.get(
          `SELECT 1 AS x FROM unnest(?::text[]) AS q(lexeme)
            WHERE EXISTS (SELECT 1 FROM ${corpus.postings} t WHERE t.lexeme = q.lexeme) LIMIT 1`,
          [lexemes],
        )) !== undefined
      );
    },

    /** Documents passing `filter` (SQL on alias d, each clause preceded by AND) ranked by BM25, best first. */
    async search(text: string, filter: { sql: string; params: Params }, limit: number): Promise<Bm25Hit[]> {
      return (await rankings(text, filter, limit, [corpus.weights]))[0]!;
    },

    /** The same matches ranked once per weighting of the classes (one read of the rows). */
    rankings,

    /** Whether some lexeme of `text` is not common among the visible documents (commonTermCutoff). */
    async holdsRareLexeme(text: string): Promise<boolean> {
      const lexemes = await lexemesOf(text);
      if (lexemes.length === 0) return false;
      const [{ n }, df] = await Promise.all([corpusStats(), Promise.all(lexemes.map((l) => frequency(l)))]);
      return df.some((f) => f <= commonTermCutoff(n));
    },

    /** Forgets the statistics (the corpus was replaced). */
    reset(): void {
      stats = undefined;
      df = new Map();
      resident = undefined;
    },
  };
}
