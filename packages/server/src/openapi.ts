import { OpenApiGeneratorV3 } from '@asteasolutions/zod-to-openapi';
import { LIMITS, VERSIONS } from '@axle/sdk';
import type { Api } from './http/route.js';

/** The OpenAPI 3.0 document, generated from the same registry the routes were mounted with. */
export function buildOpenApiDocument(api: Api, baseUrl: string) {
  const doc = new OpenApiGeneratorV3(api.registry.definitions).generateDocument({
    openapi: '3.0.3',
    info: {
      title: 'Axle — agent capability registry and knowledge marketplace',
      version: VERSIONS.openapi,
      description:
        'Skills search is free. Learnings are searched for free (snippets) and unlocked per item with an x402 payment or a prepaid credit. ' +
        'Money is reported in USD; internally it is integer micro-USDC.\n\n' +
        'Limits (docs/limits.md): request headers must arrive within 10 s and a whole request within 30 s (408 request_timeout), ' +
        'a header block past 16 KiB is 431 headers_too_large and bytes that are not HTTP are 400 malformed_request (each a JSON ' +
        'error with request_id, then the connection closes); idle kept-alive ' +
        'connections close after 5 s, and open connections are capped (all configurable). Repeatable account writes are limited per ' +
        'account (429 with Retry-After); an account holds at most ' +
        `${LIMITS.liveApiKeysPerAccount} live API keys (409 api_key_limit). A request whose client closes the connection before the ` +
        'answer is logged with status 499 (client_closed_request); no answer is sent.',
      license: { name: 'MIT', url: 'https://spdx.org/licenses/MIT.html' },
    },
    servers: [{ url: baseUrl }],
  });
  dropTypelessNullable(doc);
  return doc;
}

/**
 * z.unknown() values (passthrough objects, free-form records) come out as `{nullable: true}` with no `type`, which
 * OpenAPI 3.0 does not define (nullable only widens a declared type). A schema without a type already admits any
 * value, so the flag is dropped.
 */
function dropTypelessNullable(node: unknown): void {
  if (Array.isArray(node)) node.forEach(dropTypelessNullable);
  else if (node && typeof node === 'object') {
    const o = node as Record<string, unknown>;
    if (o.nullable === true && o.type === undefined && o.$ref === undefined && !o.allOf && !o.oneOf && !o.anyOf)
      delete o.nullable;
    Object.values(o).forEach(dropTypelessNullable);
  }
}
