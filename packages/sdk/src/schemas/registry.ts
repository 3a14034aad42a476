import { LIMITS } from '../limits.js';
import { z } from '../zod.js';
import { Category, SkillType, withoutNul } from './common.js';
import { Skill } from './skill.js';

/** Longest accepted discover query (characters, after trimming). */
export const DISCOVER_QUERY_MAX = 1000;

export const DiscoverRequest = z
  .object({
    query: z
      .string()
      .trim()
      .min(1, 'query must not be empty')
      .max(DISCOVER_QUERY_MAX, `query must be at most ${DISCOVER_QUERY_MAX} characters`)
      .describe('What the agent needs, in natural language'),
    category: Category.optional(),
    type: SkillType.optional(),
    pricing: withoutNul(z.string().trim().min(1).max(40))
      .optional()
      .describe('Pricing model of the skill, e.g. free or freemium'),
    limit: z
      .number()
      .int()
      .min(LIMITS.discover.minLimit)
      .max(LIMITS.discover.maxLimit)
      .default(LIMITS.discover.defaultLimit),
  })
  .openapi('DiscoverRequest');
export type DiscoverRequest = z.input<typeof DiscoverRequest>;

/** The filters a discover request applied (only those given). */
export const DiscoverFilters = z
  .object({ category: Category.optional(), type: SkillType.optional(), pricing: z.string().optional() })
  .openapi('DiscoverFilters');
export type DiscoverFilters = z.infer<typeof DiscoverFilters>;

/** A search result: the skill without its tool list and examples (GET /skill/{id} has them), with its relevance. */
export const SkillResult = Skill.omit({ tools: true, examples: true })
  .extend({ relevance: z.number().min(0).max(1) })
  .openapi('SkillResult');
export type SkillResult = z.infer<typeof SkillResult>;

export const DiscoverResponse = z
  .object({
    query: z.string(),
    filters: DiscoverFilters,
    results_count: z.number().int(),
    results: z.array(SkillResult),
    knowledge_hint: z.string().nullable().describe('Points to POST /knowledge when approved learnings exist'),
    search_mode: z
      .enum(['fused', 'lexical'])
      .describe(
        'The rankers that answered: `fused` (BM25 and embeddings) or `lexical` (BM25 alone, while the semantic side is ' +
          'warming, off, or shedding load: too many searches wait for an embedding worker, or it did not answer in time)',
      ),
    timestamp: z.string(),
  })
  .openapi('DiscoverResponse');
export type DiscoverResponse = z.infer<typeof DiscoverResponse>;

export const SkillParams = z.object({
  id: withoutNul(z.string().min(1).max(200)).describe('Skill id, or a slug of its name (case-insensitive)'),
});

export const SkillDetail = Skill.extend({
  content_preview: z
    .string()
    .describe(
      'How to connect, in a few lines: protocol, endpoint or command, auth (secrets marked), docs, tools, pricing',
    ),
}).openapi('SkillDetail');
export type SkillDetail = z.infer<typeof SkillDetail>;
