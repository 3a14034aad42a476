import type { AppDeps } from '../app.js';
import type { Api } from '../http/route.js';
import { buildOpenApiDocument } from '../openapi.js';

/** GET /openapi.json and the A2A agent cards. */
export function wellKnownRoutes(api: Api, deps: AppDeps): void {
  let doc: unknown;
  api.route({
    method: 'get',
    path: '/openapi.json',
    summary: 'OpenAPI 3.0 document of this API',
    tags: ['Public'],
    responses: { 200: { description: 'OpenAPI 3.0 document' } },
    // Generated on first request: every router is mounted by then.
    handler: () => (doc ??= buildOpenApiDocument(api, deps.baseUrl())),
  });
}
