import { HealthResponse } from '@axle/sdk';
import type { AppDeps } from '../app.js';
import type { Api } from '../http/route.js';

/** GET /, /health, /categories, /stats. */
export function publicRoutes(api: Api, deps: AppDeps): void {
  const { clock } = deps;
  api.route({
    method: 'get',
    path: '/health',
    summary: 'Liveness and search readiness',
    tags: ['Public'],
    responses: { 200: { description: 'Server is up', schema: HealthResponse } },
    handler: () => ({
      status: 'ok' as const,
      uptime: (clock.now() - deps.startedAt) / 1000,
      catalog_size: 0,
      skills_catalog_size: 0,
      search: deps.skills.searchState(),
      timestamp: new Date(clock.now()).toISOString(),
    }),
  });
}
