import { Category, SkillType } from './common.js';
import { z } from '../zod.js';

export const SkillConnection = z
  .object({
    protocol: z.string().describe('http, https, stdio, sse or streamable-http'),
    endpoint: z
      .string()
      .describe(
        'Web API: its listed link. MCP server: the launch command, a hosted URL, or the repository to build from',
      ),
    auth: z.string().describe('none, apiKey, OAuth, or the environment variables an MCP server needs'),
    docs: z.string().describe('Documentation or repository URL'),
    command: z.string().optional().describe('MCP servers: `npx -y <pkg>`, `uvx <pkg>` or `docker run …`'),
    env: z.array(z.string()).optional().describe('MCP servers: environment variables the server needs'),
  })
  .openapi('SkillConnection');

export const SkillPricing = z
  .object({
    model: z.string().describe('free, freemium, or another pricing model named by the catalog'),
    cost_usd: z.string().describe('Price per call in USD as a decimal string, or "unknown" when unpublished'),
    note: z.string(),
  })
  .openapi('SkillPricing');

export const SkillQuality = z
  .object({
    reliability: z.number().min(0).max(1).describe('Score from observable signals (HTTPS, CORS, published package...)'),
    verified: z.boolean().describe('True only when someone checked the skill works'),
  })
  .openapi('SkillQuality');

export const SkillTool = z
  .object({
    name: z.string().min(1),
    description: z.string(),
  })
  .openapi('SkillTool');
export type SkillTool = z.infer<typeof SkillTool>;

export const SkillInstallVariable = z
  .object({
    name: z.string().min(1).describe('Environment variable name'),
    description: z.string().optional(),
    secret: z.boolean().describe('True for credentials (API keys, tokens, passwords): keep them out of files and logs'),
    example: z.string().optional().describe('An example or placeholder value, never a real credential'),
  })
  .openapi('SkillInstallVariable');

export const SkillInstall = z
  .object({
    env: z.array(SkillInstallVariable).describe('Environment variables the server reads, secrets marked'),
    note: z.string().optional().describe('What else the server needs configured (paths, connection strings...)'),
  })
  .openapi('SkillInstall');
export type SkillInstall = z.infer<typeof SkillInstall>;

/** Bounds on a skill's examples: each is a request, and each one is a passage search embeds and scores. */
export const MAX_EXAMPLES = 10;
export const MAX_EXAMPLE_CHARS = 300;

/** A catalog entry. `relevance` is present only on search results. */
export const Skill = z
  .object({
    id: z
      .string()
      .min(1)
      .regex(/^[a-z0-9][a-z0-9-]*$/, 'slug: lower-case letters, digits and dashes'),
    name: z.string().min(1),
    description: z.string(),
    category: Category,
    tags: z.array(z.string()),
    type: SkillType,
    connection: SkillConnection,
    pricing: SkillPricing,
    quality: SkillQuality,
    tools: z.array(SkillTool).optional().describe('MCP servers: the tools it offers, when the source lists them'),
    install: SkillInstall.optional().describe('MCP servers: how to configure it'),
    examples: z
      .array(z.string().max(MAX_EXAMPLE_CHARS))
      .max(MAX_EXAMPLES)
      .optional()
      .describe('Requests this skill answers, worded as people ask for them (searched with the rest of the record)'),
    deprecated: z
      .boolean()
      .optional()
      .describe('True when the MCP registry it was synced from marks it deprecated: listed, but not recommended'),
    relevance: z.number().min(0).max(1).optional(),
  })
  .openapi('Skill');
export type Skill = z.infer<typeof Skill>;

/** An operator's catalog file (`AXLE_CATALOG`): an array of Skill objects without search fields. */
export const SkillCatalog = z.array(Skill.omit({ relevance: true }));
