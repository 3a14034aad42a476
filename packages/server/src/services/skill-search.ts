import type { SearchState, Skill, SkillResult } from '@axle/sdk';
import { votedCategory } from '../domain/category-vote.js';
import { conversionPairs, offPathConversion } from '../domain/conversion-direction.js';
import { DEVELOPER_VOCABULARY } from '../domain/developer-vocabulary.js';
import { type FeedbackOptions, feedbackTerms } from '../domain/feedback-terms.js';
import { type FusedHit, reciprocalRankFusion } from '../domain/fusion.js';
import { keyedNames, type NameProbes, nameLift, nameProbes, soleNamed } from '../domain/name-match.js';
import { groupSiblings, PACKAGING, productKey, siblingsBelow } from '../domain/near-duplicates.js';
import { nameOperation, type Operation, requestOperation } from '../domain/operation-verbs.js';
import { compileThesaurus, expandedSentence, expansionTerms } from '../domain/query-expansion.js';
import { queryTerms } from '../domain/query-terms.js';
import { withoutArguments } from '../domain/request-arguments.js';
import { requestFocus } from '../domain/request-focus.js';
import { withoutScopeAdjectives } from '../domain/scope-words.js';
import { withoutSubordinateClause } from '../domain/subordinate-clause.js';
import { namesake, recordTexts, termCoverage, termStems } from '../domain/term-coverage.js';
import { otherSense } from '../domain/word-sense.js';
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
  /** Weight of the flat BM25 ranking (the record as one text) in fusion; see DEFAULT_FLAT_WEIGHT. */
  flatWeight?: number;
  /** Weight of the ranking of MCP servers by their best-matching tool in fusion, 0 for none; see DEFAULT_TOOL_WEIGHT. */
  toolWeight?: number;
  /** Score the reranked candidates of the voted category gain; see DEFAULT_CATEGORY_BONUS. */
  categoryBonus?: number;
  /** Weight of the ranking of the request's thesaurus terms in fusion; see DEFAULT_EXPANSION_WEIGHT. */
  expansionWeight?: number;
  /** Weight of the whole request's BM25 ranking when only its need is searched, 0 for none; see DEFAULT_CONTEXT_WEIGHT. */
  contextWeight?: number;
  /** Weight of the ranking of the words the first fused candidates share in fusion, 0 for none; see DEFAULT_FEEDBACK_WEIGHT. */
  feedbackWeight?: number;
  /** Score the reranked candidates named by a capitalised word of the request gain; see DEFAULT_NAME_BONUS. */
  nameBonus?: number;
  /** Score the one reranked candidate named by a proper name of the request gains instead; see DEFAULT_SOLE_NAME_BONUS. */
  soleNameBonus?: number;
  /** Score the reranked candidates named by a word the vocabulary adds gain; see DEFAULT_PRODUCT_BONUS. */
  productBonus?: number;
  /** Score the reranked candidates whose description holds a capitalised word of the request gain; see DEFAULT_DESCRIBED_BONUS. */
  describedBonus?: number;
  /** Score a reranked candidate gains x the share of the request's words its record holds; see DEFAULT_COVERAGE_WEIGHT. */
  coverageWeight?: number;
  /** How far below the first of a product's MCP servers its siblings are placed, or -1 for not at all; see DEFAULT_SIBLING_GAP. */
  siblingGap?: number;
  /** How far down the fused candidates the siblings of the first SIBLING_LEADERS are sought; see DEFAULT_SIBLING_REACH. */
  siblingReach?: number;
  /** Score a reranked candidate loses when it converts off the request's path; see DEFAULT_CONVERSION_PENALTY. */
  conversionPenalty?: number;
  /** Score a reranked candidate loses when a request word is only in its name; see DEFAULT_NAMESAKE_PENALTY. */
  namesakePenalty?: number;
  /** Score a reranked candidate of another sense than the vocabulary's loses; see DEFAULT_SENSE_PENALTY. */
  sensePenalty?: number;
  /** Score a candidate gains when its name performs the request's operation; see DEFAULT_OPERATION_BONUS. */
  operationBonus?: number;
}

/**
 * Candidates the rerank looks at: 25 was chosen on queries.json and the everyday dev half (`npm run eval`); 40 lets the
 * operation bonus reach a product's other tools in a catalog of single tools (bench/README.md, twenty-sixth round).
 */
export const DEFAULT_RERANK_DEPTH = 40;
/** Weight of the passage gain; chosen on the dev halves with four examples a skill (bench/README.md, round 28). */
export const DEFAULT_RERANK_WEIGHT = 0.35;
/**
 * Fused search adds a third ranking, BM25 with every column weighing alike, at this weight: the field-weighted
 * ranking favours a query word in a name, the flat one a record that holds many of the query's words anywhere.
 * Chosen on queries.json and the everyday dev half (`npm run eval`; figures in bench/README.md).
 */
export const DEFAULT_FLAT_WEIGHT = 0.3;
/**
 * Fused search ranks the MCP servers whose tools match the request by their best tool's BM25 (each tool a document of
 * its own), and fuses that ranking at this weight: in the field-weighted and flat rankings a server listing hundreds
 * of tools has so long a record that BM25 ranks it low even on its own name. Chosen on the dev halves (bench/README.md,
 * thirty-second round).
 */
export const DEFAULT_TOOL_WEIGHT = 0.5;
/**
 * When 3 of the first 5 fused candidates share a category, the reranked candidates (DEFAULT_RERANK_DEPTH) of that
 * category gain this score (a first place in one ranking is worth 1 / (k + 1) = 0.167). Chosen with the above.
 */
export const DEFAULT_CATEGORY_BONUS = 0.03;
const CATEGORY_VOTERS = 5;
const CATEGORY_QUORUM = 3;
/**
 * Fused search ranks the catalog words the developer vocabulary (domain/developer-vocabulary.ts) adds to a request
 * ("local disk" -> filesystem) by BM25 on their own, and fuses that ranking, when there is one, at this weight: a
 * request that holds none of a record's words can still find it. The sentence model embeds the request with those
 * words (expandedSentence). Chosen on queries.json and the everyday dev half (bench/README.md).
 */
export const DEFAULT_EXPANSION_WEIGHT = 1;
/**
 * A long request is searched by its need (domain/request-focus.ts); its context can still name the product the need
 * is about ("On my laptop with Docker Desktop… I want the assistant to list running containers"), so the whole
 * request's field-weighted BM25 ranking joins the fusion at this weight. Chosen on the everyday-long dev half.
 */
export const DEFAULT_CONTEXT_WEIGHT = 0.3;
/**
 * Pseudo-relevance feedback: the words at least 2 of the first 5 fused candidates share in their tags, name and
 * description, held by at most 8 of the first DEFAULT_RERANK_DEPTH, neither the request's own nor packaging words
 * (`mcp`, `server`, `api`: domain/near-duplicates.ts), at most 5 of them (domain/feedback-terms.ts), are ranked by
 * BM25 when one of them is not common in the catalog (store holdsRareTerm: common ones alone would have BM25 score
 * thousands of rows, for little) and fused at this weight before the rerank: a record that says what the request's
 * best answers say, in other words than the request's, rises. Chosen on queries.json and the three everyday dev
 * halves (bench/README.md).
 */
export const DEFAULT_FEEDBACK_WEIGHT = 0.2;
const FEEDBACK: FeedbackOptions = { docs: 5, minDocs: 2, maxPool: 8, max: 5, ignore: PACKAGING };

/**
 * A reranked candidate whose name or id holds a word the request capitalises after its first word ("pages in
 * Notion", "MySQL") gains DEFAULT_NAME_BONUS; otherwise one whose name holds a term the vocabulary added (web search
 * -> brave, tavily) gains DEFAULT_PRODUCT_BONUS (domain/name-match.ts). Chosen on queries.json and the everyday dev
 * half (bench/README.md).
 */
export const DEFAULT_NAME_BONUS = 0.1;
export const DEFAULT_PRODUCT_BONUS = 0.05;
/**
 * When one reranked candidate alone has a proper name of the request (`Shopify`, `Auth0`; not an acronym such as
 * `URL`) in its name or id (soleNamed in domain/name-match.ts), it gains this instead of DEFAULT_NAME_BONUS: among
 * near-misses that match the request's other words, the one record of the product it names is the likely answer.
 * Chosen on queries.json and the three everyday dev halves (bench/README.md).
 */
export const DEFAULT_SOLE_NAME_BONUS = 0.2;
/**
 * A reranked candidate named by neither but whose description holds a word the request capitalises (a server for
 * "Confluence and Jira" named `mcp-atlassian`) gains this. Chosen on queries.json and both everyday dev halves.
 */
export const DEFAULT_DESCRIBED_BONUS = 0.05;
/**
 * A reranked candidate gains this x the share of the request's content words its name, id, description and tags
 * hold (domain/term-coverage.ts): a record with most of the request's words rises over one that holds a single word
 * of it in its name. Chosen on queries.json and the everyday dev half (bench/README.md).
 */
export const DEFAULT_COVERAGE_WEIGHT = 0.02;
/**
 * When an MCP server is among the first SIBLING_LEADERS reranked candidates, the other reranked servers for the same
 * product (domain/near-duplicates.ts) score at least its score minus this gap, so they follow it. Chosen with the above.
 */
export const DEFAULT_SIBLING_GAP = 0.001;
const SIBLING_LEADERS = 10;
/**
 * A fused candidate above this place but below DEFAULT_RERANK_DEPTH whose id names the product of one of the first
 * SIBLING_LEADERS fused candidates (productKey) joins the rerank, so the siblings follow their leader from there
 * too: a product's other servers that one ranking misses sit far down. Chosen on the dev halves (bench/README.md,
 * twenty-fifth round).
 */
export const DEFAULT_SIBLING_REACH = 50;
/**
 * A reranked candidate whose name, id or description names a conversion off the request's path and never the
 * request's own (the other way round, "text to speech" for "speech to text"; or one that ends where the request's
 * starts or starts where it ends, "anything to Markdown" for "Markdown to HTML", "JSON to JSONP" for "CSV to JSON":
 * domain/conversion-direction.ts) loses this: more than the largest single bonus above (DEFAULT_SOLE_NAME_BONUS), so
 * it leaves the first places (bench/README.md, twenty-fourth round).
 */
export const DEFAULT_CONVERSION_PENALTY = 0.3;
/**
 * A reranked candidate the request does not name (no name lift) whose name or id holds a request word that its
 * description and tags do not, nor any word the vocabulary added (`Google Drive` for "driving directions", `Penguin
 * Publishing` for "publish events to a message queue": domain/term-coverage.ts `namesake`) loses this: the
 * field-weighted BM25 ranking puts such a name high on one word. Chosen on the dev halves (bench/README.md,
 * twenty-fifth round).
 */
export const DEFAULT_NAMESAKE_PENALTY = 0.05;
/**
 * A reranked candidate the request does not name whose record holds just one of the request's words (3 to 6 of them)
 * and none of the words the vocabulary added, outside the category 2 of the first 3 reranked candidates holding an added
 * word share (domain/word-sense.ts `otherSense`: Ticketmaster for "publish events to a message queue", which adds
 * kafka rabbitmq; OpenZeppelin contracts for "send a contract out for electronic signature"), loses this, unless it
 * is among the sentence model's first SENSE_MODEL_TOP for the request (the vocabulary's sense can be the wrong one:
 * "severe weather alerts" adds alerting and monitoring). Chosen on the dev halves and a probe of two-sense words
 * (bench/README.md, twenty-sixth round, helper <senses>).
 */
export const DEFAULT_SENSE_PENALTY = 0.1;
const SENSE = { minStems: 3, maxStems: 6, voters: 3, quorum: 2 };
const SENSE_MODEL_TOP = 5;
/**
 * A reranked candidate whose name performs the operation the request names first (domain/operation-verbs.ts:
 * `delete_group` for "get rid of the group") gains this, and one whose name performs another operation loses it: in a
 * catalog of single tools, a product's tools differ by their verb alone. Chosen on the tool-retrieval dev requests
 * (bench/tool-retrieval.js --dev; bench/README.md, twenty-sixth and twenty-ninth rounds). No bundled skill's name
 * performs an operation, so it acts on operator and synced catalogs of tools only.
 */
export const DEFAULT_OPERATION_BONUS = 0.1;
const VOCABULARY = compileThesaurus(DEVELOPER_VOCABULARY);

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
  /**
   * Whether a lower-case word is an ordinary word (search/vocabulary.ts: the sentence model reads it whole). With it,
   * a request word that is a reranked candidate's product key names that candidate as a capitalised one does
   * (keyedNames in domain/name-match.ts: "list users in okta"), unless it is ordinary; without it, none does.
   */
  ordinaryWord?: (word: string) => boolean;
}

export function createSkillSearch({
  repo,
  semantic,
  candidates = 100,
  minCosine = 0.2,
  k = DEFAULT_K,
  rerankDepth = DEFAULT_RERANK_DEPTH,
  rerankWeight = DEFAULT_RERANK_WEIGHT,
  flatWeight = DEFAULT_FLAT_WEIGHT,
  toolWeight = DEFAULT_TOOL_WEIGHT,
  categoryBonus = DEFAULT_CATEGORY_BONUS,
  expansionWeight = DEFAULT_EXPANSION_WEIGHT,
  contextWeight = DEFAULT_CONTEXT_WEIGHT,
  feedbackWeight = DEFAULT_FEEDBACK_WEIGHT,
  nameBonus = DEFAULT_NAME_BONUS,
  soleNameBonus = DEFAULT_SOLE_NAME_BONUS,
  productBonus = DEFAULT_PRODUCT_BONUS,
  describedBonus = DEFAULT_DESCRIBED_BONUS,
  coverageWeight = DEFAULT_COVERAGE_WEIGHT,
  siblingGap = DEFAULT_SIBLING_GAP,
  siblingReach = DEFAULT_SIBLING_REACH,
  conversionPenalty = DEFAULT_CONVERSION_PENALTY,
  namesakePenalty = DEFAULT_NAMESAKE_PENALTY,
  sensePenalty = DEFAULT_SENSE_PENALTY,
  operationBonus = DEFAULT_OPERATION_BONUS,
  ordinaryWord,
}: SkillSearchDeps): SkillSearch {
  /** Whether the rerank reads its candidates' records (for the bonuses that look at them). */
  const readsRecords =
    categoryBonus > 0 ||
    nameBonus > 0 ||
    soleNameBonus > 0 ||
    productBonus > 0 ||
    describedBonus > 0 ||
    coverageWeight > 0 ||
    conversionPenalty > 0 ||
    namesakePenalty > 0 ||
    sensePenalty > 0 ||
    operationBonus > 0 ||
    siblingGap >= 0;
  /**
   * The top fused candidates gain `rerankWeight` x how much better their best passage (a tool, a sentence) matches
   * the request than the skill's whole text does: a server whose one tool fits rises over one whose summary is merely
   * close; `categoryBonus` when they are in the category most of the first candidates share (votedCategory);
   * `soleNameBonus`, `nameBonus` or `productBonus` when their name holds a product the request names (alone among the
   * candidates, or not) or the vocabulary added (nameLift; with `ordinaryWord`, a lower-case request word that is a
   * candidate's product key names it too: keyedNames); `coverageWeight` x the share of the request's content words
   * (`stems`) their record holds; and `operationBonus` when their name performs the operation the request names
   * (nameOperation, requestOperation), which they lose instead when it performs another. They lose
   * `conversionPenalty` when their record converts off the path of one of the request's `conversions`
   * (offPathConversion); `namesakePenalty` when the request does not name them and a request word is only in their
   * name (namesake, the vocabulary's `added` stems counting as the request's); and `sensePenalty` when the request
   * does not name them and their record holds one request word and none of the `added` ones, outside the category of
   * the records that hold those (otherSense), unless the sentence model puts them among its first SENSE_MODEL_TOP.
   * Then the MCP servers of one product follow the first of them (groupSiblings), its siblings down to
   * `siblingReach` reranked with them (siblingsBelow). Skills without passages keep their fused score but for these
   * bonuses. Reads the records `known` lacks; returns the skills it read.
   */
  async function rerank(
    fused: FusedHit[],
    hits: SemanticHits,
    weights: readonly number[],
    query: string,
    probesOf: (keyed: readonly string[]) => NameProbes,
    stems: readonly string[],
    conversions: readonly string[],
    known: ReadonlyMap<string, Skill>,
    added: readonly string[],
    operation: Operation | undefined,
  ): Promise<{ reranked: FusedHit[]; read: Map<string, Skill> }> {
    const pool = [
      ...fused.slice(0, rerankDepth),
      ...(siblingGap >= 0
        ? siblingsBelow(fused, productKey, { leaders: SIBLING_LEADERS, from: rerankDepth, to: siblingReach })
        : []),
    ];
    const top = pool.map((f) => f.id);
    const reranked = new Set(top);
    const missing = readsRecords ? top.filter((id) => !known.has(id)) : [];
    const [passages, fetched] = await Promise.all([
      rerankWeight > 0 ? semantic.passageScores(hits.vector, top) : new Map<string, number>(),
      missing.length > 0 ? repo.getMany(missing) : new Map<string, Skill>(),
    ]);
    const read = new Map<string, Skill>();
    if (readsRecords)
      for (const id of top) {
        const skill = known.get(id) ?? fetched.get(id);
        if (skill !== undefined) read.set(id, skill);
      }
    const category = votedCategory(
      top.map((id) => read.get(id)?.category),
      CATEGORY_VOTERS,
      CATEGORY_QUORUM,
    );
    const probes = probesOf(
      ordinaryWord === undefined ? [] : keyedNames(query, [...read.values()], { stems, added, ordinary: ordinaryWord }),
    );
    const whole = new Map(hits.hits.map((h) => [h.id, h.score]));
    const offSense = sensePenalty > 0 ? otherSense(stems, added, [...read.values()], SENSE) : new Set<string>();
    for (const h of hits.hits.slice(0, SENSE_MODEL_TOP)) offSense.delete(h.id);
    const sole = soleNamed(probes, [...read.values()]);
    // Below the semantic ranker's last hit, a skill's cosine is at most that hit's (or the cut-off).
    const floor = hits.hits.at(-1)?.score ?? minCosine;
    // Relevance keeps its meaning (1 = first in every ranking); a gain can only lift it to 1, a penalty drop it to 0.
    const best = weights.reduce((a, w) => a + w, 0) / (k + 1);
    const rescored = pool
      .map((f) => {
        const p = passages.get(f.id);
        const gain = p === undefined ? 0 : Math.max(0, p - Math.max(whole.get(f.id) ?? floor, minCosine));
        const bonus = category !== undefined && read.get(f.id)?.category === category ? categoryBonus : 0;
        const skill = read.get(f.id);
        const lift =
          skill === undefined
            ? 0
            : nameLift(
                probes,
                skill,
                { sole: soleNameBonus, named: nameBonus, product: productBonus, described: describedBonus },
                sole,
              );
        const coverage = skill === undefined ? 0 : termCoverage(stems, recordTexts(skill));
        const offPath =
          skill !== undefined &&
          conversions.length > 0 &&
          offPathConversion(conversions, conversionPairs(`${skill.name} ${skill.id} ${skill.description}`))
            ? conversionPenalty
            : 0;
        const misnamed = lift === 0 && skill !== undefined && namesake(stems, added, skill) ? namesakePenalty : 0;
        const unsensed = lift === 0 && offSense.has(f.id) ? sensePenalty : 0;
        const performs = operation === undefined || skill === undefined ? undefined : nameOperation(skill.name);
        const verb = performs === undefined ? 0 : performs === operation ? operationBonus : -operationBonus;
        return {
          id: f.id,
          score:
            f.score +
            rerankWeight * gain +
            bonus +
            lift +
            coverageWeight * coverage -
            offPath -
            misnamed -
            unsensed +
            verb,
        };
      })
      .sort((a, b) => b.score - a.score);
    const product = (id: string) => (read.get(id)?.type === 'mcp_server' ? productKey(id) : undefined);
    const grouped = siblingGap >= 0 ? groupSiblings(rescored, product, SIBLING_LEADERS, siblingGap) : rescored;
    const ordered = [
      ...grouped.map((f) => ({ ...f, relevance: Math.min(1, Math.max(0, f.score / best)) })),
      ...fused.slice(rerankDepth).filter((f) => !reranked.has(f.id)),
    ].sort((a, b) => b.score - a.score);
    return { reranked: ordered, read };
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

    async search({ query: asked, filters = {}, limit = 10, mode = 'fused' }) {
      // The values a tool-use request passes (a quoted title, a link, an id) say which item, not which skill.
      const request = withoutArguments(asked);
      const query = requestFocus(request);
      // A language or nationality before a noun ("a British voice") says which language, and a clause after the need
      // ("before sending a bank transfer") when or why, not which skill: the words searched for leave them, the
      // sentence model reads them.
      const words = withoutScopeAdjectives(withoutSubordinateClause(query));
      const semanticReady = semantic.state() === 'ready';
      if (mode === 'semantic' && !semanticReady) throw new Error(`semantic search is ${semantic.state()}`);
      const useLexical = mode !== 'semantic';
      const useSemantic = mode !== 'lexical' && semanticReady;
      // Alone, a ranker's first `limit` are the answer; only fusion needs the deeper candidate lists.
      const depth = useLexical && useSemantic ? candidates : limit;
      const expansion = useLexical && useSemantic && expansionWeight > 0 ? expansionTerms(query, VOCABULARY) : [];
      const contextual = useLexical && useSemantic && contextWeight > 0 && query !== request;
      const [lexical, semanticHits, expanded, context] = await Promise.all([
        useLexical && useSemantic
          ? repo.lexicalRankings(words, filters, depth)
          : useLexical
            ? repo.lexicalSearch(words, filters, depth).then((fields) => ({ fields, flat: [], tools: [] }))
            : undefined,
        useSemantic ? semanticRanking(expandedSentence(query, expansion), filters, mode, depth) : undefined,
        expansion.length > 0 ? repo.lexicalSearch(expansion.join(' '), filters, depth) : undefined,
        contextual ? repo.lexicalSearch(request, filters, depth) : undefined,
      ]);
      const ranked: Array<[ReadonlyArray<{ id: string }>, number]> = [];
      if (lexical) ranked.push([lexical.fields, 1]);
      if (semanticHits) ranked.push([semanticHits.hits, 1]);
      // The flat ranking joins only beside the semantic one: alone, lexical search keeps its field-weighted order.
      if (lexical && semanticHits && flatWeight > 0) ranked.push([lexical.flat, flatWeight]);
      if (lexical && semanticHits && toolWeight > 0 && lexical.tools.length > 0)
        ranked.push([lexical.tools, toolWeight]);
      if (lexical && semanticHits && expanded) ranked.push([expanded, expansionWeight]);
      if (context) ranked.push([context, contextWeight]);
      const rankings = ranked.map(([hits]) => hits.map((h) => h.id));
      const weights = ranked.map(([, w]) => w);
      let fused = reciprocalRankFusion(rankings, k, weights);
      let read = new Map<string, Skill>();
      if (lexical && semanticHits && feedbackWeight > 0) {
        const pool = fused.slice(0, rerankDepth).map((f) => f.id);
        read = await repo.getMany(pool);
        const texts = pool.map((id) => {
          const skill = read.get(id);
          return skill === undefined ? '' : `${skill.tags.join(' ')} ${skill.name} ${skill.description}`;
        });
        const words = feedbackTerms(query, texts, FEEDBACK).join(' ');
        if (words !== '' && (await repo.holdsRareTerm(words))) {
          rankings.push((await repo.lexicalSearch(words, filters, depth)).map((h) => h.id));
          weights.push(feedbackWeight);
          fused = reciprocalRankFusion(rankings, k, weights);
        }
      }
      if (lexical && semanticHits && (rerankWeight > 0 || readsRecords))
        ({ reranked: fused, read } = await rerank(
          fused,
          semanticHits,
          weights,
          query,
          (keyed) => nameProbes(query, expansion, keyed),
          termStems(queryTerms(words)),
          conversionPairs(query),
          read,
          termStems(expansion),
          requestOperation(words),
        ));
      fused = fused.slice(0, limit);
      const missing = fused.map((f) => f.id).filter((id) => !read.has(id));
      const skills = missing.length > 0 ? new Map([...read, ...(await repo.getMany(missing))]) : read;
      const results = fused
        .map((f) => {
          const skill: Skill | undefined = skills.get(f.id);
          if (!skill) return undefined;
          // A result names the skill; its tool list (up to hundreds) and examples are read from GET /skill/{id}.
          const { tools: _tools, examples: _examples, ...result } = skill;
          return { ...result, relevance: round(f.relevance) };
        })
        .filter((r) => r !== undefined);
      const ran: SearchMode = lexical && semanticHits ? 'fused' : semanticHits ? 'semantic' : 'lexical';
      return { results, mode: ran };
    },
  };
}
