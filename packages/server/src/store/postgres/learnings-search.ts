import { learningFilterSql, VISIBLE } from '../learnings.js';
import { LEXICAL_WEIGHTS, type LearningsSearch } from '../learnings-search.js';
import type { Queryable } from '../queryable.js';
import { bm25Search } from './bm25.js';

/**
 * Learnings search on PostgreSQL: BM25 over the tsvector the learnings_fts trigger keeps (title A, tags B, body C,
 * task context D), read from its postings, learning_terms, which the learning_terms trigger keeps.
 */
export function createPostgresLearningsSearch(db: Queryable, now: () => number): LearningsSearch {
  const bm25 = bm25Search(
    db,
    {
      table: 'learnings',
      postings: 'learning_terms',
      visible: `d.${VISIBLE}`,
      floorLexemesRank: false,
      weights: {
        A: LEXICAL_WEIGHTS.title,
        B: LEXICAL_WEIGHTS.tags,
        C: LEXICAL_WEIGHTS.body,
        D: LEXICAL_WEIGHTS.taskContext,
      },
    },
    now,
  );
  return {
    lexical: (query, filters, limit) => bm25.search(query, learningFilterSql(filters, 'd'), limit),
    anyMatch: (query) => bm25.anyMatch(query),
  };
}
