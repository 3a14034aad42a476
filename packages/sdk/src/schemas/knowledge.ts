import { displayString } from '../display-text.js';
import { z } from '../zod.js';
import { LIMITS } from '../limits.js';
import { DateTime, LearningCategory, Outcome, withoutNul } from './common.js';
import { LearningId, LearningSnippet } from './learning.js';

export const CategoryCount = z
  .object({ category: LearningCategory, count: z.number().int().min(0) })
  .openapi('CategoryCount');

export const TopLearning = z
  .object({
    id: LearningId,
    title: z.string(),
    category: LearningCategory,
    unlocks: z.number().int().min(0),
    avg_helpfulness: z.number().min(0).max(5),
    current_price: z.number().min(0),
  })
  .describe('Not specified by the contract: a visible learning ranked by unlocks')
  .openapi('TopLearning');

/** GET /knowledge/stats. Counts cover publicly visible (approved) learnings only. */
export const KnowledgeStats = z
  .object({
    learnings_count: z.number().int().min(0),
    categories: z.array(CategoryCount).describe('visible learnings per learning category, every category listed'),
    total_unlocks: z.number().int().min(0),
    total_ratings: z.number().int().min(0),
    total_earnings_usd: z.number().min(0),
    total_contributors: z.number().int().min(0),
    top_learnings: z.array(TopLearning),
    timestamp: DateTime,
  })
  .openapi('KnowledgeStats');
export type KnowledgeStats = z.infer<typeof KnowledgeStats>;

/** Longest accepted knowledge query (characters, after trimming). */
export const KNOWLEDGE_QUERY_MAX = 1000;

/** POST /knowledge. */
export const KnowledgeSearchRequest = z
  .object({
    query: z
      .string()
      .trim()
      .min(1, 'query must not be empty')
      .max(KNOWLEDGE_QUERY_MAX, `query must be at most ${KNOWLEDGE_QUERY_MAX} characters`),
    category: LearningCategory.optional(),
    outcome: Outcome.optional(),
    related_skill: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .optional()
      .describe('a skill id the learning names in related_skills'),
    limit: z
      .number()
      .int()
      .min(LIMITS.knowledge.minLimit)
      .max(LIMITS.knowledge.maxLimit)
      .default(LIMITS.knowledge.defaultLimit),
  })
  .openapi('KnowledgeSearchRequest');
export type KnowledgeSearchRequest = z.input<typeof KnowledgeSearchRequest>;

export const KnowledgeSearchResponse = z
  .object({
    query: z.string(),
    content_advisory: z.string(),
    results_count: z.number().int().min(0),
    results: z.array(LearningSnippet),
    search_mode: z
      .enum(['fused', 'lexical'])
      .describe(
        'The rankers that answered: `fused` (BM25 and embeddings) or `lexical` (BM25 alone, while the semantic side is ' +
          'warming, off, or shedding load: too many searches wait for an embedding worker, or it did not answer in time)',
      ),
    pricing: z.string().describe('how unlocking is paid for'),
    timestamp: DateTime,
  })
  .openapi('KnowledgeSearchResponse');
export type KnowledgeSearchResponse = z.infer<typeof KnowledgeSearchResponse>;

/** POST /knowledge/{id}/rate. */
export const RateRequest = z
  .object({
    helpfulness: z.number().int().min(LIMITS.rating.min).max(LIMITS.rating.max),
    notes: displayString(0, 2000, 'notes', { singleLine: false }).optional(),
  })
  .openapi('RateRequest');
export type RateRequest = z.infer<typeof RateRequest>;

export const RateResponse = z
  .object({
    recorded: z.literal(true),
    learning_id: LearningId,
    replaced: z.boolean().describe("true when this replaced the account's earlier rating of the learning"),
    new_avg_helpfulness: z.number().min(0).max(5),
    total_ratings: z.number().int().min(0),
    distinct_raters: z
      .number()
      .int()
      .min(0)
      .describe('accounts holding a rating slot; ratings move ranking once 3 or more exist'),
  })
  .openapi('RateResponse');
export type RateResponse = z.infer<typeof RateResponse>;

export const ContributorParams = z.object({ wallet: withoutNul(z.string().trim().min(1).max(100)) });
