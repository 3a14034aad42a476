// Free text -> a safe FTS5 MATCH expression. User input never reaches FTS syntax: the text is
// split into letter/digit runs (as the unicode61 tokenizer does), each run becomes a quoted
// string, and the strings are OR-ed, so `"`, `*`, `NEAR(`, `-`, `AND`, `:` or `^` are just text.
import { queryTerms } from '../domain/query-terms.js';

/** The MATCH expression for `text`, or null when it has no searchable term. */
export function buildMatchExpression(text: string): string | null {
  return matchExpression(queryTerms(text));
}

/** The MATCH expression OR-ing `terms`, or null when there are none. */
export function matchExpression(terms: readonly string[]): string | null {
  if (terms.length === 0) return null;
  return terms.map((t) => `"${t.replaceAll('"', '""')}"`).join(' OR ');
}

/** Terms found in more than this share of rows only rank; rarer ones decide which rows match. */
export const COMMON_TERM_SHARE = 0.025;
/** ...and in more than this many rows: shorter doclists cost little, and small catalogs keep every match. */
export const COMMON_TERM_MIN_ROWS = 500;

/** A term in more rows than this, of `rows`, is common (COMMON_TERM_SHARE, COMMON_TERM_MIN_ROWS). */
export const commonTermCutoff = (rows: number): number => Math.max(rows * COMMON_TERM_SHARE, COMMON_TERM_MIN_ROWS);

/**
 * The MATCH expression for `terms`, where `df[i]` rows of `rows` contain `terms[i]`. A common word
 * ("data", "api", "server") makes FTS5 collect and score thousands of rows, so when rarer terms exist a
 * row must contain one of them, and the common ones, repeated in the second clause, still add to BM25
 * for rows that do (matching seeks their doclists instead of walking them, though bm25() still walks
 * each one once a query for its IDF). bm25() costs a docsize lookup per matched row, so the cut-off
 * sets the cost; the figures behind COMMON_TERM_SHARE are in bench/README.md.
 */
export function selectiveMatchExpression(terms: readonly string[], df: readonly number[], rows: number): string | null {
  const rare = terms.filter((_, i) => df[i]! <= commonTermCutoff(rows));
  if (rare.length === 0 || rare.length === terms.length) return matchExpression(terms);
  return `(${matchExpression(rare)}) AND (${matchExpression(terms)})`;
}

/**
 * The terms that rank when `selecting` ones decide which rows match: those, and every term found in fewer
 * than half of the `rows`. A term in half the rows or more gets BM25's floor IDF (1e-6, in FTS5's bm25() as
 * in store/postgres/bm25.ts), so it only breaks ties, and FTS5's bm25() walks its whole doclist once a query
 * to learn that (`df[i]` rows contain `terms[i]`). The learnings search uses it; figures in bench/README.md.
 */
export function rankingTerms<T>(
  terms: readonly T[],
  df: readonly number[],
  rows: number,
  selecting: readonly T[],
): T[] {
  return terms.filter((t, i) => selecting.includes(t) || df[i]! < rows / 2);
}
