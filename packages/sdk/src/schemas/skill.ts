import { Category, SkillType } from './common.js';
import { z } from '../zod.js';

export const SkillConnection = z
  .object({
    protocol: z.string().describe('http, https, stdio, sse or streamable-http'),
    endpoint: z.string().describe('Base URL of a web API, or the command that starts an MCP server'),
    auth: z.string().describe('none, apiKey, OAuth, or the environment variables an MCP server needs'),
    docs: z.string(),
    command: z.string().optional().describe('MCP servers: `npx -y <pkg>`, `uvx <pkg>` or `docker run …`'),
    env: z.array(z.string()).optional().describe('MCP servers: environment variables the server needs'),
  })
  .openapi('SkillConnection');

export const SkillPricing = z
  .object({ model: z.string(), cost_usd: z.string(), note: z.string() })
  .openapi('SkillPricing');

export const SkillQuality = z
  .object({ reliability: z.number().min(0).max(1), verified: z.boolean() })
  .openapi('SkillQuality');

/** A catalog entry. `relevance` is present only on search results. */
export const Skill = z
  .object({
    id: z.string().min(1).regex(/^[a-z0-9][a-z0-9-]*$/, 'slug: lower-case letters, digits and dashes'),
    name: z.string().min(1),
    description: z.string(),
    category: Category,
    tags: z.array(z.string()),
    type: SkillType,
    connection: SkillConnection,
    pricing: SkillPricing,
    quality: SkillQuality,
    relevance: z.number().min(0).max(1).optional(),
  })
  .openapi('Skill');
export type Skill = z.infer<typeof Skill>;

/** An operator's catalog file (`AXLE_CATALOG`): an array of Skill objects without search fields. */
export const SkillCatalog = z.array(Skill.omit({ relevance: true }));
