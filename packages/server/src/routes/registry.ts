import {
  DiscoverRequest,
  DiscoverResponse,
  type DiscoverFilters,
  ERROR_CODES,
  SkillDetail,
  SkillParams,
  z,
} from '@axle/sdk';
import type { AppDeps } from '../deps.js';
import { DomainError } from '../domain/errors.js';
import { accountLimit } from '../http/account-limit.js';
import { addressLimit } from '../http/address-limit.js';
import type { Api } from '../http/route.js';

/** Search is free: a key is optional, but one that is presented must be valid (401 otherwise). */
const OptionalKey = z.object({ 'x-api-key': z.string().optional().describe('API key (optional; search is free)') });

/** POST /discover and GET /skill/{id}. */
export function registryRoutes(api: Api, deps: AppDeps): void {
  const { skills, clock, rateLimiter, config } = deps;
  const optionalKey = deps.identity.optionalKey();

  api.route({
    method: 'post',
    path: '/discover',
    operationId: 'discoverSkills',
    summary: 'Search the skills catalog',
    description:
      'Natural-language search over web APIs and MCP servers: BM25 and sentence-embedding rankings fused by reciprocal rank. ' +
      '`relevance` is 1 for a skill first in every ranking. Falls back to lexical search while the semantic side is warming or off (see GET /health `search`), and when more ' +
      'searches wait for an embedding worker than the server allows (AXLE_SEARCH_QUEUE_MAX); `search_mode` says which ran. ' +
      "The query is cut to the model's 128-token window after NFKC normalisation. Without an API key, " +
      `${config.anonymousDiscoverPerMinute} searches per client address and minute (AXLE_ANONYMOUS_DISCOVER_PER_MINUTE); ` +
      `with one, ${config.keyedDiscoverPerMinute} per account and minute (AXLE_KEYED_DISCOVER_PER_MINUTE).`,
    tags: ['Registry'],
    headers: OptionalKey,
    before: [
      optionalKey,
      addressLimit(rateLimiter, config.trustProxy, {
        name: 'discover',
        perMinute: config.anonymousDiscoverPerMinute,
        anonymousOnly: true,
      }),
      accountLimit(rateLimiter, { name: 'discover', perMinute: config.keyedDiscoverPerMinute }),
    ],
    body: DiscoverRequest,
    responses: {
      200: { description: 'Ranked skills', schema: DiscoverResponse },
      400: { description: 'Invalid request' },
      401: { description: 'An API key was presented but is unknown or revoked' },
      429: { description: 'Too many searches from this address (anonymous) or this account (keyed) (Retry-After)' },
    },
    handler: async ({ body }) => {
      const filters: DiscoverFilters = {
        ...(body.category && { category: body.category }),
        ...(body.type && { type: body.type }),
        ...(body.pricing && { pricing: body.pricing }),
      };
      const [outcome, knowledge_hint] = await Promise.all([
        skills.discover(body.query, filters, body.limit),
        skills.knowledgeHint(body.query),
      ]);
      return {
        query: body.query,
        filters,
        results_count: outcome.results.length,
        results: outcome.results,
        knowledge_hint,
        search_mode: outcome.mode === 'fused' ? 'fused' : 'lexical',
        timestamp: new Date(clock.now()).toISOString(),
      } satisfies DiscoverResponse;
    },
  });

  api.route({
    method: 'get',
    path: '/skill/{id}',
    operationId: 'getSkill',
    summary: 'One skill with a connection preview',
    description: 'By id, or by a slug of the skill name (case-insensitive: `GitHub`, `google maps`).',
    tags: ['Registry'],
    headers: OptionalKey,
    before: [optionalKey],
    params: SkillParams,
    responses: {
      200: { description: 'The skill', schema: SkillDetail },
      401: { description: 'An API key was presented but is unknown or revoked' },
      404: { description: 'No such skill' },
    },
    handler: async ({ params }) => {
      const skill = await skills.get(params.id);
      if (!skill) throw new DomainError(ERROR_CODES.NOT_FOUND, `Skill not found: ${params.id}`);
      return skill;
    },
  });
}
