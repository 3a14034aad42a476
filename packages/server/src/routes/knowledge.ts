import {
  ContributorEarnings,
  ContributorParams,
  KnowledgeSearchRequest,
  KnowledgeSearchResponse,
  KnowledgeStats,
  LearningIdParams,
  LIMITS,
  RateRequest,
  RateResponse,
} from '@axle/sdk';
import type { AppDeps } from '../deps.js';
import { addressLimit } from '../http/address-limit.js';
import type { Api } from '../http/route.js';

/** POST /knowledge, GET /knowledge/stats, POST /knowledge/{id}/rate, GET /contributor/{wallet}. */
export function knowledgeRoutes(api: Api, deps: AppDeps): void {
  const { identity, knowledge, rateLimiter, config } = deps;

  api.route({
    method: 'post',
    path: '/knowledge',
    operationId: 'searchKnowledge',
    summary: 'Search learnings (snippets, free)',
    description:
      'Full-text and sentence-embedding relevance, blended with quality (rubric score; average helpfulness once 3 or more distinct ' +
      'accounts rated) and freshness. Every result shown counts as a search impression; with an API key, it is also recorded as ' +
      'surfaced to that account (discovery-driven unlocks). Without an API key, ' +
      `${LIMITS.perAddress.anonymousKnowledgeSearch.perMinute} searches per client address and minute; with one, ` +
      `${LIMITS.accountWrites.keyedSearch.perMinute} a minute and ${LIMITS.accountWrites.keyedSearch.perHour} an hour ` +
      'per account (429 with Retry-After; a refused search writes nothing). ' +
      '`search_mode` says which rankers answered (lexical alone while the semantic side is warming or shedding load).',
    tags: ['Knowledge'],
    security: [],
    before: [
      identity.optionalKey(),
      addressLimit(rateLimiter, config.trustProxy, {
        name: 'knowledge-search',
        perMinute: LIMITS.perAddress.anonymousKnowledgeSearch.perMinute,
        anonymousOnly: true,
      }),
    ],
    body: KnowledgeSearchRequest,
    responses: {
      200: { description: 'Ranked snippets', schema: KnowledgeSearchResponse },
      400: { description: 'Validation failure' },
      401: { description: 'An API key was presented but is not valid' },
      429: {
        description: 'Too many anonymous searches from this address, or keyed ones by this account (Retry-After)',
      },
    },
    handler: ({ body }, ctx) => knowledge.search(body, ctx.state.identity?.accountId ?? null),
  });

  api.route({
    method: 'get',
    path: '/knowledge/stats',
    operationId: 'getKnowledgeStats',
    summary: 'Knowledge marketplace statistics',
    description:
      'Computed at most every 30 seconds and served from memory in between; `timestamp` says when it was computed.',
    tags: ['Knowledge'],
    responses: { 200: { description: 'Counts over publicly visible learnings', schema: KnowledgeStats } },
    handler: () => knowledge.stats(),
  });

  api.route({
    method: 'post',
    path: '/knowledge/{id}/rate',
    operationId: 'rateLearning',
    summary: 'Rate a learning',
    description:
      'Needs an identity (API key or session token), which the contract does not declare: without one the answer is 401. One ' +
      'rating slot per account: rating again replaces it (replaced: true). Ratings move ranking only from 3 distinct raters on. ' +
      'Contributors cannot rate their own learnings (403; also the account its contributor_wallet is linked to), ' +
      'nor can a suspended account (403 account_suspended). ' +
      'Per account: 20 ratings a minute, 100 an hour.',
    tags: ['Knowledge'],
    security: ['ApiKey', 'BearerJWT'],
    before: [identity.requireJwtOrKey(), identity.requireActiveAccount()],
    params: LearningIdParams,
    body: RateRequest,
    responses: {
      200: { description: 'Recorded', schema: RateResponse },
      400: { description: 'helpfulness is not an integer 1..5' },
      401: { description: 'No identity: rating needs an API key or a session token' },
      403: { description: 'Your own learning, or a suspended account (account_suspended)' },
      404: { description: 'No such visible learning' },
      429: { description: 'Per-account rating limit' },
    },
    handler: ({ params, body }, ctx) =>
      knowledge.rate(ctx.state.identity!.accountId, params.id, body.helpfulness, body.notes),
  });

  api.route({
    method: 'get',
    path: '/contributor/{wallet}',
    operationId: 'getContributor',
    summary: 'Contributor profile and earnings by wallet',
    description:
      "learnings_submitted counts the wallet's publicly visible learnings (the /knowledge/stats predicate); the earnings " +
      'fields sum the unlock ledger over the learnings attributed to the wallet.',
    tags: ['Knowledge'],
    params: ContributorParams,
    responses: {
      200: { description: 'Contributor earnings', schema: ContributorEarnings },
      400: { description: 'wallet longer than 100 characters' },
    },
    handler: ({ params }) => knowledge.contributor(params.wallet),
  });
}
