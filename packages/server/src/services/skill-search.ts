import type { SearchState, Skill, SkillResult } from '@axle/sdk';
import { type FusedHit, reciprocalRankFusion } from '../domain/fusion.js';
import type { SemanticIndex } from '../search/semantic-index.js';
import type { SemanticHits } from '../search/worker-protocol.js';
import type { SkillFilters, SkillsStore } from '../store/skills.js';

export type SearchMode = 'fused' | 'lexical' | 'semantic';

export interface SearchRequest {
  query: string;
  filters?: SkillFilters;
  limit?: number;
  /** `fused` (default) falls back to lexical while the semantic side is not ready. */
  mode?: SearchMode;
}

export interface SearchOutcome {
  results: SkillResult[];
  /** The rankers that actually ran. */
  mode: SearchMode;
}

export interface SkillSearchOptions {
  /** How many candidates each ranker contributes to fusion. */
  candidates?: number;
  /** Semantic candidates below this cosine are dropped (unrelated text scores about 0 to 0.2). */
  minCosine?: number;
  /** RRF constant; see DEFAULT_K. */
  k?: number;
  /** Fused candidates reranked by their best-matching passage; see DEFAULT_RERANK_DEPTH. */
  rerankDepth?: number;
  /** Weight of the passage ranking in the final fusion; see DEFAULT_RERANK_WEIGHT. */
  rerankWeight?: number;
}

/** Candidates the passage rerank looks at (chosen on the everyday dev half, `npm run eval`). */
export const DEFAULT_RERANK_DEPTH = 20;
export const DEFAULT_RERANK_WEIGHT = 0.25;

/**
 * RRF constant for skill search, chosen on the labelled set (`npm run eval`; figures in bench/README.md). A k
 * well below the textbook 60 lets a clear first place in either ranker count, which suits two rankers whose
 * strength varies a lot from query to query.
 */
export const DEFAULT_K = 5;

const round = (x: number) => Math.round(x * 10_000) / 10_000;

/** Skill search: BM25 and sentence embeddings, fused by reciprocal rank. In-process API for routes, evals and benches. */
export interface SkillSearch {
  readonly semantic: SemanticIndex;
  state(): SearchState;
  search(request: SearchRequest): Promise<SearchOutcome>;
}

export interface SkillSearchDeps extends SkillSearchOptions {
  repo: SkillsStore;
  semantic: SemanticIndex;
}

export function createSkillSearch({
  repo,
  semantic,
  candidates = 100,
  minCosine = 0.2,
  k = DEFAULT_K,
  rerankDepth = DEFAULT_RERANK_DEPTH,
  rerankWeight = DEFAULT_RERANK_WEIGHT,
}: SkillSearchDeps): SkillSearch {
  /**
   * The top fused candidates gain `rerankWeight` x how much better their best passage (a tool, a sentence) matches
   * the request than the skill's whole text does: a server whose one tool fits rises over one whose summary is merely
   * close. Skills without passages keep their fused score.
   */
  function rerank(fused: FusedHit[], hits: SemanticHits, rankers: number): FusedHit[] {
    const top = fused.slice(0, rerankDepth).map((f) => f.id);
    const passages = semantic.passageScores(hits.vector, top);
    const whole = new Map(hits.hits.map((h) => [h.id, h.score]));
    // Below the semantic ranker's last hit, a skill's cosine is at most that hit's (or the cut-off).
    const floor = hits.hits.at(-1)?.score ?? minCosine;
    // Relevance keeps its meaning (1 = first in every ranker); a passage gain can only lift it to 1.
    const best = rankers / (k + 1);
    return fused
      .map((f) => {
        const p = passages.get(f.id);
        const gain = p === undefined ? 0 : Math.max(0, p - Math.max(whole.get(f.id) ?? floor, minCosine));
        const score = f.score + rerankWeight * gain;
        return { id: f.id, score, relevance: Math.min(1, score / best) };
      })
      .sort((a, b) => b.score - a.score);
  }

  /** In fused mode a semantic failure (the worker died) degrades to lexical instead of failing the search. */
  async function semanticRanking(
    query: string,
    filters: SkillFilters,
    mode: SearchMode,
    depth: number,
  ): Promise<SemanticHits | undefined> {
    try {
      const allowed = await repo.idsMatching(filters);
      return await semantic.search(query, depth, minCosine, allowed);
    } catch (err) {
      if (mode === 'semantic') throw err;
      return undefined;
    }
  }

  return {
    semantic,
    state: () => ({ lexical: 'ready', semantic: semantic.state() }),

    async search({ query, filters = {}, limit = 10, mode = 'fused' }) {
      const semanticReady = semantic.state() === 'ready';
      if (mode === 'semantic' && !semanticReady) throw new Error(`semantic search is ${semantic.state()}`);
      const useLexical = mode !== 'semantic';
      const useSemantic = mode !== 'lexical' && semanticReady;
      // Alone, a ranker's first `limit` are the answer; only fusion needs the deeper candidate lists.
      const depth = useLexical && useSemantic ? candidates : limit;
      const [lexical, semanticHits] = await Promise.all([
        useLexical ? repo.lexicalSearch(query, filters, depth) : undefined,
        useSemantic ? semanticRanking(query, filters, mode, depth) : undefined,
      ]);
      const rankings = [lexical, semanticHits?.hits].filter((r) => r !== undefined).map((r) => r.map((h) => h.id));
      let fused = reciprocalRankFusion(rankings, k);
      if (lexical && semanticHits && rerankWeight > 0) fused = rerank(fused, semanticHits, rankings.length);
      fused = fused.slice(0, limit);
      const skills = await repo.getMany(fused.map((f) => f.id));
      const results = fused
        .map((f) => {
          const skill: Skill | undefined = skills.get(f.id);
          if (!skill) return undefined;
          // A result names the skill; its tool list (up to hundreds) is read from GET /skill/{id}.
          const { tools: _tools, ...result } = skill;
          return { ...result, relevance: round(f.relevance) };
        })
        .filter((r) => r !== undefined);
      const ran: SearchMode = lexical && semanticHits ? 'fused' : semanticHits ? 'semantic' : 'lexical';
      return { results, mode: ran };
    },
  };
}
