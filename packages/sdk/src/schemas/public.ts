import { z } from '../zod.js';
import { Category, DateTime, LearningCategory, SkillType } from './common.js';

export const SearchState = z
  .object({
    lexical: z.enum(['ready', 'unavailable']),
    semantic: z.enum(['warming', 'ready', 'unavailable', 'disabled']),
  })
  .openapi('SearchState');
export type SearchState = z.infer<typeof SearchState>;

export const HealthResponse = z
  .object({
    status: z.literal('ok'),
    uptime: z.number().describe('seconds since the process started'),
    catalog_size: z.number().int().describe('visible learnings'),
    skills_catalog_size: z.number().int(),
    search: SearchState.optional(),
    timestamp: z.string(),
  })
  .openapi('Health');

const count = z.number().int().min(0);

export const RootResponse = z
  .object({
    name: z.string(),
    tagline: z.string(),
    version: z.string(),
    operator: z.string(),
    wallet: z.string().describe('platform wallet receiving x402 payments'),
    network: z.string().describe('CAIP-2 id of the payment network'),
    protocol: z.string().describe('payment protocol'),
    catalog_size: count.describe('visible (approved) learnings'),
    categories: z.array(LearningCategory).describe('learning categories that hold at least one visible learning'),
    skills_catalog_size: count,
    skills_categories: z.array(Category).describe('skill categories that hold at least one skill'),
    endpoints: z.record(z.string(), z.string()).describe('"METHOD /path" -> summary, for every mounted route'),
    built: DateTime.describe('when this server build was made'),
  })
  .openapi('Root');

export const CategoriesResponse = z
  .object({
    categories: z
      .record(Category, count)
      .describe(
        'visible learnings per category, every Category value listed (communication and content-generation are retired for learnings and stay 0). Skills per category: GET /stats and POST /discover',
      ),
    total: count.describe('visible learnings, equal to the sum of the counts'),
  })
  .openapi('Categories');

export const StatsResponse = z
  .object({
    catalog_size: count.describe('visible (approved) learnings'),
    categories: count.describe('learning categories holding at least one visible learning'),
    skills_catalog_size: count,
    skills_categories: count.describe('skill categories holding at least one skill'),
    types: z.record(SkillType, count).describe('skills per type'),
    queries: z
      .record(z.string(), count)
      .describe('searches served since the database was created: discover, knowledge'),
    uptime: z.number().describe('seconds since the process started'),
    version: z.string(),
  })
  .openapi('Stats');
