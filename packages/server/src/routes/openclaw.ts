import {
  OpenClawConfigPatch,
  OpenClawConfigResponse,
  OpenClawStateResponse,
  OpenClawStatus,
  OpenClawTriggerResponse,
} from '@axle/sdk';
import type { Context, Middleware, Next } from 'koa';
import type { AppDeps } from '../deps.js';
import { clientIp } from '../http/client-ip.js';
import { sameOrigin } from '../http/csrf.js';
import type { Api } from '../http/route.js';

const isLoopback = (ip: string) => ip === '::1' || /^127\./.test(ip);

/**
 * Loopback callers (the operator on the same machine) pass; anyone else needs the admin token (read
 * scope is enough for GETs). A request that came through a proxy (X-Forwarded-For or Forwarded present)
 * is never treated as local, since a reverse proxy on the same host makes every caller look loopback.
 * Nor is a page of another site in the operator's browser (Origin or Sec-Fetch-Site names it): the browser
 * is on loopback too, and CORS lets any page read the answers.
 */
function localOrAdmin(deps: AppDeps, scope: 'read' | 'admin'): Middleware {
  const admin = deps.identity.requireAdmin(scope);
  return async (ctx: Context, next: Next) => {
    const proxied = ctx.get('x-forwarded-for') !== '' || ctx.get('forwarded') !== '';
    const local = !proxied && sameOrigin(ctx, new URL(deps.baseUrl()).origin) && isLoopback(clientIp(ctx, false));
    if (local) return next();
    return admin(ctx, next);
  };
}

/** GET /openclaw/status, POST /openclaw/trigger, POST /openclaw/config, GET /openclaw/state. */
export function openclawRoutes(api: Api, deps: AppDeps): void {
  const { openclaw } = deps;
  const common = { tags: ['OpenClaw'], security: ['AdminToken' as const] };
  const description =
    'Answers loopback callers without credentials (not pages of another site in a browser); anyone else needs the admin token.';

  api.route({
    ...common,
    method: 'get',
    path: '/openclaw/status',
    operationId: 'getOpenClawStatus',
    summary: 'State of the local memory-file adapter',
    description,
    before: [localOrAdmin(deps, 'read')],
    responses: {
      200: { description: 'Adapter status', schema: OpenClawStatus },
      401: { description: 'Not loopback and no valid admin token' },
      503: { description: 'Adapter not configured (AXLE_OPENCLAW_MEMORY_PATH unset)' },
    },
    handler: () => openclaw.status(),
  });

  api.route({
    ...common,
    method: 'post',
    path: '/openclaw/trigger',
    operationId: 'triggerOpenClawRun',
    summary: 'Start an extraction run now',
    description: `${description} The run continues in the background; poll GET /openclaw/status.`,
    before: [localOrAdmin(deps, 'admin')],
    responses: {
      200: { description: 'Run started', schema: OpenClawTriggerResponse },
      401: { description: 'Not loopback and no valid admin token' },
      409: { description: 'A run is already under way' },
      503: { description: 'Adapter not configured' },
    },
    handler: () => openclaw.trigger(),
  });

  api.route({
    ...common,
    method: 'post',
    path: '/openclaw/config',
    operationId: 'updateOpenClawConfig',
    summary: 'Change adapter settings',
    description: `${description} Only the OpenClawConfig fields are accepted; any other field is a 400. Changes persist.`,
    before: [localOrAdmin(deps, 'admin')],
    body: OpenClawConfigPatch,
    responses: {
      200: { description: 'The full configuration now in force', schema: OpenClawConfigResponse },
      400: { description: 'Unknown field or invalid value' },
      401: { description: 'Not loopback and no valid admin token' },
      503: { description: 'Adapter not configured' },
    },
    handler: async ({ body }) => ({ config: await openclaw.setConfig(body) }),
  });

  api.route({
    ...common,
    method: 'get',
    path: '/openclaw/state',
    operationId: 'getOpenClawState',
    summary: 'Files extracted so far, with their content hashes',
    description,
    before: [localOrAdmin(deps, 'read')],
    responses: {
      200: { description: 'State entries', schema: OpenClawStateResponse },
      401: { description: 'Not loopback and no valid admin token' },
      503: { description: 'Adapter not configured' },
    },
    handler: () => openclaw.state(),
  });
}
