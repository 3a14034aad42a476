import { OpenApiGeneratorV3 } from '@asteasolutions/zod-to-openapi';
import { VERSIONS } from '@axle/sdk';
import type { Api } from './http/route.js';

/** The OpenAPI 3.0 document, generated from the same registry the routes were mounted with. */
export function buildOpenApiDocument(api: Api, baseUrl: string) {
  return new OpenApiGeneratorV3(api.registry.definitions).generateDocument({
    openapi: '3.0.3',
    info: {
      title: 'Axle — agent capability registry and knowledge marketplace',
      version: VERSIONS.openapi,
      description:
        'Skills search is free. Learnings are searched for free (snippets) and unlocked per item with an x402 payment or a prepaid credit. Money is reported in USD; internally it is integer micro-USDC.',
      license: { name: 'MIT' },
    },
    servers: [{ url: baseUrl }],
  });
}
