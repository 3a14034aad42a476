import { z } from '../zod.js';
import { Category, DateTime, SkillType } from './common.js';

export const SearchState = z
  .object({
    lexical: z.enum(['ready', 'unavailable']),
    semantic: z.enum(['warming', 'ready', 'unavailable', 'disabled']),
  })
  .openapi('SearchState');
export type SearchState = z.infer<typeof SearchState>;

/** The contract names the visible-learnings count `catalog_size`; `learnings_count` says what it counts. */
const CATALOG_SIZE = "the contract's name for learnings_count: visible learnings, not skills";

export const HealthResponse = z
  .object({
    status: z.literal('ok'),
    uptime: z.number().describe('seconds since the process started'),
    learnings_count: z.number().int().describe('visible (approved) learnings'),
    catalog_size: z.number().int().describe(CATALOG_SIZE),
    skills_catalog_size: z.number().int().describe('skills in the catalog'),
    search: SearchState.optional(),
    timestamp: z.string(),
  })
  .openapi('Health');

/** GET /health's 503: the instance cannot serve, for want of the dependency named. */
export const HealthUnavailable = z
  .object({
    status: z.literal('unavailable'),
    error: z.string(),
    code: z.literal('database_unavailable'),
    dependency: z.literal('database').describe('the dependency that does not answer'),
    uptime: z.number().describe('seconds since the process started'),
    timestamp: z.string(),
  })
  .openapi('HealthUnavailable');

const count = z.number().int().min(0);

/** One category of the taxonomy with what it holds. */
export const CategoryContents = z
  .object({
    category: Category,
    skills: count.describe('skills in the catalog'),
    learnings: count.describe(
      'visible (approved) learnings; communication and content-generation are retired for learnings',
    ),
  })
  .openapi('CategoryContents');

export const RootResponse = z
  .object({
    name: z.string(),
    tagline: z.string(),
    version: z.string(),
    operator: z.string(),
    wallet: z.string().describe('platform wallet receiving x402 payments'),
    network: z.string().describe('CAIP-2 id of the payment network'),
    protocol: z.string().describe('payment protocol'),
    learnings_count: count.describe('visible (approved) learnings'),
    catalog_size: count.describe(CATALOG_SIZE),
    skills_catalog_size: count.describe('skills in the catalog'),
    categories: z
      .array(CategoryContents)
      .describe('every category of the taxonomy, in its order, with the skills and visible learnings it holds'),
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
    learnings_count: count.describe('visible (approved) learnings'),
    catalog_size: count.describe(CATALOG_SIZE),
    learning_categories: count.describe('learning categories holding at least one visible learning'),
    categories: count.describe("the contract's name for learning_categories"),
    skills_catalog_size: count.describe('skills in the catalog'),
    skills_categories: count.describe('skill categories holding at least one skill'),
    types: z.record(SkillType, count).describe('skills per type'),
    queries: z
      .record(z.string(), count)
      .describe('searches served since the database was created: discover, knowledge'),
    uptime: z.number().describe('seconds since the process started'),
    version: z.string(),
  })
  .openapi('Stats');
