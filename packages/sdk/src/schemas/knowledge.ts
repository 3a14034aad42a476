import { z } from '../zod.js';
import { DateTime, LearningCategory } from './common.js';
import { LearningId } from './learning.js';

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
