import {
  CONTENT_ADVISORY,
  type ContributorEarnings,
  ERROR_CODES,
  type KnowledgeSearchResponse,
  type KnowledgeStats,
  LEARNING_CATEGORIES,
  microToUsd,
  type RateResponse,
} from '@axle/sdk';
import type { Clock } from '../clock.js';
import { DomainError } from '../domain/errors.js';
import { blendScore } from '../domain/quality.js';
import { freshness01 } from '../domain/verdict.js';
import type { LearningVectors } from '../search/learning-vectors.js';
import type { Transactor } from '../store/queryable.js';
import type { LearningsSearch } from '../store/learnings-search.js';
import { type LearningFilters, learningsStore } from '../store/learnings.js';
import { walletKey } from '../store/wallets.js';
import { getAccount } from './accounts.js';
import { contributorEarnings } from './earnings.js';
import { priceOf, qualityOf, toSnippet } from './learning-view.js';
import { staleWhileRevalidate } from './stale-while-revalidate.js';
import type { AccountWriteLimiter } from './account-write-limits.js';

export type KnowledgeMode = 'blend' | 'lexical' | 'semantic';

export interface KnowledgeQuery {
  query: string;
  category?: string;
  outcome?: string;
  related_skill?: string;
  limit: number;
}

export interface KnowledgeService {
  /**
   * POST /knowledge: ranks, prices, records impressions (and what surfaced to `accountId`). A keyed search is limited
   * per account (LIMITS.accountWrites.keyedSearch; 429 rate_limited with Retry-After past it).
   */
  search(input: KnowledgeQuery, accountId: string | null): Promise<KnowledgeSearchResponse>;
  /** Ranked ids only, no side effects (evaluation and benches). */
  rank(query: string, filters: LearningFilters, limit: number, mode?: KnowledgeMode): Promise<string[]>;
  rate(accountId: string, learningId: string, helpfulness: number, notes?: string): Promise<RateResponse>;
  stats(): Promise<KnowledgeStats>;
  contributor(wallet: string): Promise<ContributorEarnings>;
}

export interface KnowledgeDeps {
  db: Transactor;
  /** The dialect's full-text search of visible learnings. */
  learningsSearch: LearningsSearch;
  clock: Clock;
  writeLimits: AccountWriteLimiter;
  vectors?: LearningVectors;
}

/** Candidates each ranker contributes to the blend. */
const CANDIDATES = 50;
/** Semantic candidates below this cosine are dropped. */
const MIN_COSINE = 0.25;
const TOP_LEARNINGS = 10;
/** How stale GET /knowledge/stats may be (its timestamp says when it was computed). */
export const STATS_TTL_MS = 30_000;

const PRICING_NOTE =
  'Search is free. Unlock a learning with GET /knowledge/{id}: one unlock credit with X-API-Key, or an x402 USDC payment of current_price on eip155:8453.';

export function createKnowledgeService({
  db,
  learningsSearch,
  clock,
  writeLimits,
  vectors,
}: KnowledgeDeps): KnowledgeService {
  async function computeStats(): Promise<KnowledgeStats> {
    const [totals, byCategory, top] = await Promise.all([
      learningsStore.stats(db),
      learningsStore.countByCategory(db),
      learningsStore.top(db, TOP_LEARNINGS),
    ]);
    return {
      learnings_count: totals.count,
      categories: LEARNING_CATEGORIES.map((category) => ({ category, count: byCategory[category] ?? 0 })),
      total_unlocks: totals.unlocks,
      total_ratings: totals.ratings,
      total_earnings_usd: microToUsd(totals.grossMicro),
      total_contributors: totals.contributors,
      top_learnings: top.map((l) => ({
        id: l.id,
        title: l.title,
        category: l.category as (typeof LEARNING_CATEGORIES)[number],
        unlocks: l.unlockCount,
        avg_helpfulness: Math.round(l.avgHelpfulness * 1000) / 1000,
        current_price: microToUsd(l.currentPriceMicro),
      })),
      timestamp: new Date(clock.now()).toISOString(),
    };
  }

  // Every visible learning is read for the totals: answered from memory, recomputed at most every STATS_TTL_MS.
  const stats = staleWhileRevalidate(computeStats, STATS_TTL_MS, clock);
  /**
   * The semantic candidates; undefined when that side is off or cannot answer in time (warming, the embedding
   * queue full, the model past its deadline, a dead worker): in `blend` mode the search then runs lexically.
   */
  async function semanticCandidates(query: string, filters: LearningFilters, mode: KnowledgeMode) {
    if (mode === 'lexical' || !vectors?.ready()) return undefined;
    try {
      const allowed = await learningsStore.idsMatching(db, filters);
      return await vectors.search(query, CANDIDATES, MIN_COSINE, allowed);
    } catch (err) {
      if (mode === 'semantic') throw err;
      return undefined;
    }
  }

  async function ranked(query: string, filters: LearningFilters, mode: KnowledgeMode) {
    // Only what ranking reads (the full records are read for the results shown); the lexical hits' fields are read
    // while the query is still being embedded, so only the semantic side's other hits are read after it.
    const lexicalSide = async () => {
      const hits = mode !== 'semantic' ? await learningsSearch.lexical(query, filters, CANDIDATES) : [];
      return {
        hits,
        fields: await learningsStore.rankingFieldsByIds(
          db,
          hits.map((h) => h.id),
        ),
      };
    };
    const [lexical, semantic] = await Promise.all([lexicalSide(), semanticCandidates(query, filters, mode)]);
    const top = lexical.hits[0]?.score ?? 0;
    const lex = new Map(lexical.hits.map((h) => [h.id, top > 0 ? h.score / top : 0]));
    const sem = semantic ? new Map(semantic.map((h) => [h.id, h.score])) : undefined;
    const semanticOnly = [...(sem?.keys() ?? [])].filter((id) => !lex.has(id));
    const records = [...lexical.fields, ...(await learningsStore.rankingFieldsByIds(db, semanticOnly))];
    const now = clock.now();
    const hits = records
      .map((l) => {
        const lexical = mode === 'semantic' ? (sem?.get(l.id) ?? 0) : (lex.get(l.id) ?? 0);
        const semanticScore = mode === 'blend' && sem ? (sem.get(l.id) ?? 0) : null;
        const score = blendScore({
          lexical,
          semantic: semanticScore,
          quality01: qualityOf(l),
          freshness01: freshness01(now - (l.publishedAt ?? l.createdAt)),
        });
        return { l, score };
      })
      .filter((r) => r.score > 0)
      .sort((a, b) => b.score - a.score || a.l.id.localeCompare(b.l.id));
    return { hits, searchMode: sem ? ('fused' as const) : ('lexical' as const) };
  }

  const filtersOf = (i: KnowledgeQuery): LearningFilters => ({
    category: i.category,
    outcome: i.outcome,
    relatedSkill: i.related_skill,
  });

  return {
    async search(input, accountId) {
      // A keyed search writes per account (impressions, what surfaced to it): limited per account, counted in the
      // transaction of its writes. An account past its limit is refused before any ranking: the take throws the 429
      // with its Retry-After, and its transaction rolls the hit back.
      if (accountId && (await writeLimits.exhausted('keyedSearch', accountId)))
        await db.tx((q) => writeLimits.take('keyedSearch', accountId, q));
      const { hits: rankedHits, searchMode } = await ranked(input.query, filtersOf(input), 'blend');
      const shown = rankedHits.slice(0, input.limit);
      const full = await learningsStore.visibleByIds(
        db,
        shown.map((h) => h.l.id),
      );
      const scoreOf = new Map(shown.map((h) => [h.l.id, h.score]));
      // A learning hidden between the two reads is left out.
      const hits = full.map((l) => ({ l, score: scoreOf.get(l.id)! }));
      const now = clock.now();
      const ids = hits.map((h) => h.l.id);
      // One price: what a search shows is computed from demand now and stored in the same transaction (writers
      // are serialised), so the 402 and the unlock that follow read and charge exactly the price shown.
      if (ids.length > 0 || accountId)
        await db.tx(async (q) => {
          if (accountId) await writeLimits.take('keyedSearch', accountId, q);
          if (ids.length === 0) return;
          const demand = await learningsStore.demand(q, ids, now);
          for (const h of hits) {
            const price = priceOf(h.l, demand.get(h.l.id)!);
            if (price !== h.l.currentPriceMicro) await learningsStore.reprice(q, h.l.id, price, now);
            h.l = { ...h.l, currentPriceMicro: price };
          }
          await learningsStore.recordImpressions(q, ids, accountId, now);
        });
      const top = hits[0]?.score ?? 0;
      const results = hits.map((h) => toSnippet(h.l, top > 0 ? h.score / top : 0, now));
      return {
        query: input.query,
        content_advisory: CONTENT_ADVISORY,
        results_count: results.length,
        results,
        search_mode: searchMode,
        pricing: PRICING_NOTE,
        timestamp: new Date(now).toISOString(),
      };
    },

    async rank(query, filters, limit, mode = 'blend') {
      return (await ranked(query, filters, mode)).hits.slice(0, limit).map((h) => h.l.id);
    },

    rate(accountId, learningId, helpfulness, notes) {
      return db.tx(async (q) => {
        const now = clock.now();
        const l = await learningsStore.byId(q, learningId);
        if (!l || l.status !== 'approved')
          throw new DomainError(ERROR_CODES.NOT_FOUND, 'Learning not found', { learning_id: learningId });
        // The contributor is the owning account or the account its contributor_wallet is linked to (as for unlocks).
        const wallet = l.contributorWallet === null ? null : (await getAccount(q, accountId))?.wallet;
        if (l.contributorAccountId === accountId || (wallet && walletKey(wallet) === walletKey(l.contributorWallet!)))
          throw new DomainError(ERROR_CODES.FORBIDDEN, 'Contributors cannot rate their own learnings');
        await writeLimits.take('rating', accountId, q);
        const replaced = await learningsStore.rate(q, learningId, accountId, helpfulness, notes ?? null, now);
        const after = (await learningsStore.byId(q, learningId))!;
        return {
          recorded: true as const,
          learning_id: learningId,
          replaced,
          new_avg_helpfulness: Math.round(after.avgHelpfulness * 1000) / 1000,
          total_ratings: after.ratingCount,
          distinct_raters: after.ratingCount,
        };
      });
    },

    stats: () => stats(),

    contributor: (wallet) => contributorEarnings(db, wallet),
  };
}
