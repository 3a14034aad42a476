import {
  CATEGORIES,
  CategoriesResponse,
  HealthResponse,
  HealthUnavailable,
  RootResponse,
  SKILL_TYPES,
  StatsResponse,
  VERSIONS,
} from '@axle/sdk';
import type { AppDeps } from '../deps.js';
import { buildTime } from '../build-info.js';
import { type Api, reply } from '../http/route.js';

/** Seconds a balancer or client may wait before asking /health again when the database does not answer. */
const HEALTH_RETRY_AFTER_S = 1;

/** Searches that /stats always reports, even before the first one is served. */
const COUNTED_QUERIES = ['discover', 'knowledge'] as const;

/** Every key of `keys`, with the count from `counts` or 0. */
const complete = <K extends string>(keys: readonly K[], counts: Record<string, number>) =>
  Object.fromEntries(keys.map((k) => [k, counts[k] ?? 0])) as Record<K, number>;

/** Keys with a count, in taxonomy order. */
const present = <K extends string>(keys: readonly K[], counts: Record<string, number>) =>
  keys.filter((k) => (counts[k] ?? 0) > 0);

/** GET /, /health, /categories, /stats. */
export function publicRoutes(api: Api, deps: AppDeps): void {
  const { clock, config, skills, learnings, searchCounts: searches, logger } = deps;
  const built = buildTime().toISOString();
  const uptime = () => (clock.now() - deps.startedAt) / 1000;

  api.route({
    method: 'get',
    path: '/',
    operationId: 'getServiceOverview',
    summary: 'Service overview: catalog sizes, payment details and endpoints',
    tags: ['Public'],
    responses: { 200: { description: 'Service overview', schema: RootResponse } },
    handler: async () => {
      const [visible, byCategory, skillCount, skillsByCategory] = await Promise.all([
        learnings.countVisible(),
        learnings.countByCategory(),
        skills.count(),
        skills.countByCategory(),
      ]);
      return RootResponse.parse({
        name: 'Axle',
        tagline: 'Agent capability registry and knowledge marketplace: free skill search, pay-per-unlock learnings',
        version: VERSIONS.openapi,
        operator: config.operator,
        wallet: config.payTo,
        network: 'eip155:8453',
        protocol: 'x402',
        learnings_count: visible,
        catalog_size: visible,
        skills_catalog_size: skillCount,
        categories: CATEGORIES.map((category) => ({
          category,
          skills: skillsByCategory[category] ?? 0,
          learnings: byCategory[category] ?? 0,
        })),
        skills_categories: present(CATEGORIES, skillsByCategory),
        endpoints: endpointIndex(api),
        built,
      });
    },
  });

  /** Whether the last /health found the database answering: a change is logged once, not at every poll. */
  let databaseAnswered = true;
  api.route({
    method: 'get',
    path: '/health',
    operationId: 'getHealth',
    summary: 'Liveness and search readiness',
    description:
      'Answers at once from a count read from the database at most once a second (polled less often, within a second, from the read its poll starts). 503 while the database does not answer that read (it failed, or has had no answer for a second): the instance can serve nothing, and a load balancer should take it out until /health answers 200 again.',
    tags: ['Public'],
    responses: {
      200: { description: 'Server is up', schema: HealthResponse },
      503: {
        description: 'The database does not answer (code database_unavailable, dependency database)',
        schema: HealthUnavailable,
        headers: { 'Retry-After': 'seconds before asking again' },
      },
    },
    handler: async () => {
      const visible = await learnings.recentVisibleCount();
      const timestamp = new Date(clock.now()).toISOString();
      if (visible.ok !== databaseAnswered) {
        databaseAnswered = visible.ok;
        if (visible.ok) logger.info('health: the database answers again');
        else {
          // The driver's error, kept on a DomainError's cause; none when the read is merely unanswered.
          const err = (visible.error as { cause?: unknown } | undefined)?.cause ?? visible.error;
          logger.warn({ err }, 'health: the database does not answer; /health answers 503');
        }
      }
      if (!visible.ok)
        return reply(
          503,
          HealthUnavailable.parse({
            status: 'unavailable',
            error: 'The database is unavailable; try again shortly',
            code: 'database_unavailable',
            dependency: 'database',
            uptime: uptime(),
            timestamp,
          }),
          { 'Retry-After': String(HEALTH_RETRY_AFTER_S) },
        );
      return HealthResponse.parse({
        status: 'ok',
        uptime: uptime(),
        learnings_count: visible.value,
        catalog_size: visible.value,
        skills_catalog_size: await skills.count(),
        search: skills.searchState(),
        timestamp,
      });
    },
  });

  api.route({
    method: 'get',
    path: '/categories',
    operationId: 'getCategories',
    summary: 'Visible learnings per category',
    description:
      'Counts learnings (like learnings_count), over the whole Category taxonomy; communication and content-generation are retired for learnings and stay 0.',
    tags: ['Public'],
    responses: { 200: { description: 'Counts per category', schema: CategoriesResponse } },
    handler: async () => {
      const byCategory = await learnings.countByCategory();
      const categories = complete(CATEGORIES, byCategory);
      return CategoriesResponse.parse({ categories, total: Object.values(categories).reduce((a, b) => a + b, 0) });
    },
  });

  api.route({
    method: 'get',
    path: '/stats',
    operationId: 'getStats',
    summary: 'Platform statistics',
    tags: ['Public'],
    responses: { 200: { description: 'Catalog sizes, skill types and searches served', schema: StatsResponse } },
    handler: async () => {
      const [visible, byCategory, queries, skillCount, skillsByCategory, skillsByType] = await Promise.all([
        learnings.countVisible(),
        learnings.countByCategory(),
        searches.all(),
        skills.count(),
        skills.countByCategory(),
        skills.countByType(),
      ]);
      return StatsResponse.parse({
        learnings_count: visible,
        catalog_size: visible,
        learning_categories: present(CATEGORIES, byCategory).length,
        categories: present(CATEGORIES, byCategory).length,
        skills_catalog_size: skillCount,
        skills_categories: present(CATEGORIES, skillsByCategory).length,
        types: complete(SKILL_TYPES, skillsByType),
        queries: { ...complete(COUNTED_QUERIES, {}), ...queries },
        uptime: uptime(),
        version: VERSIONS.openapi,
      });
    },
  });
}

/** "METHOD /path" -> summary for every documented route, read from the same registry /openapi.json uses. */
function endpointIndex(api: Api): Record<string, string> {
  const index: Record<string, string> = {};
  for (const def of api.registry.definitions) {
    if (def.type === 'route') index[`${def.route.method.toUpperCase()} ${def.route.path}`] = def.route.summary ?? '';
  }
  return index;
}
