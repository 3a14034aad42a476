import type { Clock } from '../clock.js';
import type { Transactor } from '../store/queryable.js';
import { learningsStore } from '../store/learnings.js';
import type { LearningsSearch } from '../store/learnings-search.js';
import { type KnowledgeHints, knowledgeHint } from './learnings-port.js';
import { type ProbeResult, probe } from './probe.js';
import { staleWhileRevalidate } from './stale-while-revalidate.js';

/** How stale the counts behind /health and the knowledge hint may be: both are read on hot paths. */
const HOT_COUNT_TTL_MS = 1000;
/** /health calls the database unavailable when its read has had no answer this long. */
const HEALTH_ANSWER_WITHIN_MS = 1000;

/** The knowledge marketplace's learnings, as the public routes and the skills registry see them. */
export interface LearningsService extends KnowledgeHints {
  countVisible(): Promise<number>;
  /** Visible learnings per category; categories without any are absent. */
  countByCategory(): Promise<Record<string, number>>;
  /**
   * countVisible for /health, answered at once from the last read (at most one a second, in the background); not
   * ok while the database does not answer it (the read failed, or has had no answer for a second).
   */
  recentVisibleCount(): Promise<ProbeResult<number>>;
}

export function createLearningsService({
  db,
  learningsSearch,
  clock,
}: {
  db: Transactor;
  learningsSearch: LearningsSearch;
  clock: Clock;
}): LearningsService {
  const recentVisibleCount = probe(() => learningsStore.countVisible(db.health), clock, {
    intervalMs: HOT_COUNT_TTL_MS,
    answerWithinMs: HEALTH_ANSWER_WITHIN_MS,
  });
  const anyVisible = staleWhileRevalidate(() => learningsStore.anyVisible(db), HOT_COUNT_TTL_MS, clock);
  return {
    countVisible: () => learningsStore.countVisible(db),
    countByCategory: () => learningsStore.countByCategory(db),
    recentVisibleCount,
    // Only when a visible learning shares a word with the query (one FTS lookup, after a cached "any at all").
    hintFor: async (query) => {
      if (!(await anyVisible())) return null;
      return (await learningsSearch.anyMatch(query)) ? knowledgeHint(query) : null;
    },
  };
}
