import path from 'node:path';
import type { OpenClawAdapter } from '@axle/extractor';
import {
  ERROR_CODES,
  OpenClawConfigPatch,
  OpenClawConfigResponse,
  OpenClawStateResponse,
  OpenClawStatus,
  OpenClawTriggerResponse,
} from '@axle/sdk';
import type { Context, Middleware, Next } from 'koa';
import type { AppDeps } from '../deps.js';
import { clientIp } from '../http/client-ip.js';
import { DomainError } from '../domain/errors.js';
import type { Api } from '../http/route.js';

export interface OpenClawMount {
  /** Null when AXLE_OPENCLAW_MEMORY_PATH is unset: the routes then answer 503. */
  adapter: Promise<OpenClawAdapter> | null;
  close(): Promise<void>;
}

const isLoopback = (ip: string) => ip === '::1' || /^127\./.test(ip);

/**
 * Loopback callers (the operator on the same machine) pass; anyone else needs the admin token (read
 * scope is enough for GETs). A request that came through a proxy (X-Forwarded-For or Forwarded present)
 * is never treated as local, since a reverse proxy on the same host makes every caller look loopback.
 */
function localOrAdmin(deps: AppDeps, scope: 'read' | 'admin'): Middleware {
  const admin = deps.identity.requireAdmin(scope);
  return async (ctx: Context, next: Next) => {
    const proxied = ctx.get('x-forwarded-for') !== '' || ctx.get('forwarded') !== '';
    if (!proxied && isLoopback(clientIp(ctx, false))) return next();
    return admin(ctx, next);
  };
}

const notConfigured = () =>
  new DomainError(ERROR_CODES.OPENCLAW_NOT_CONFIGURED, 'OpenClaw adapter not configured', {
    message: 'Set AXLE_OPENCLAW_MEMORY_PATH to the OpenClaw workspace folder and restart the server.',
  });

/** GET /openclaw/status, POST /openclaw/trigger, POST /openclaw/config, GET /openclaw/state. */
export function openclawRoutes(api: Api, deps: AppDeps): OpenClawMount {
  const { openclawMemoryPath, openclawApiKey } = deps.config;
  // The extractor (scrubber, secretlint) takes ~0.25 s to load: only when the adapter is configured.
  const extractor = openclawMemoryPath ? import('@axle/extractor') : null;
  const create = async (memoryPath: string): Promise<OpenClawAdapter> =>
    new (await extractor!).OpenClawAdapter({
      memoryPath,
      // The server captures OpenClaw memory only; Claude Code sessions are the CLI runner's job.
      claudeProjectsPath: null,
      statePath: path.join(deps.config.dataDir, 'openclaw', 'state.json'),
      queueDir: path.join(deps.config.dataDir, 'openclaw', 'queue'),
      clock: () => deps.clock.now(),
      ...(openclawApiKey && {
        // A getter: the base URL is known only once the server listens, and each run reads it then.
        submit: {
          get server() {
            return deps.baseUrl();
          },
          apiKey: openclawApiKey,
        },
      }),
    });
  const adapter = openclawMemoryPath ? create(openclawMemoryPath) : null;
  const need = async (): Promise<OpenClawAdapter> => {
    if (!adapter) throw notConfigured();
    return adapter;
  };
  const common = { tags: ['OpenClaw'], security: ['AdminToken' as const] };
  const description = 'Answers loopback callers without credentials; anyone else needs the admin token.';

  api.route({
    ...common,
    method: 'get',
    path: '/openclaw/status',
    summary: 'State of the local memory-file adapter',
    description,
    before: [localOrAdmin(deps, 'read')],
    responses: {
      200: { description: 'Adapter status', schema: OpenClawStatus },
      401: { description: 'Not loopback and no valid admin token' },
      503: { description: 'Adapter not configured (AXLE_OPENCLAW_MEMORY_PATH unset)' },
    },
    handler: async () => (await need()).status(),
  });

  api.route({
    ...common,
    method: 'post',
    path: '/openclaw/trigger',
    summary: 'Start an extraction run now',
    description: `${description} The run continues in the background; poll GET /openclaw/status.`,
    before: [localOrAdmin(deps, 'admin')],
    responses: {
      200: { description: 'Run started', schema: OpenClawTriggerResponse },
      401: { description: 'Not loopback and no valid admin token' },
      409: { description: 'A run is already under way' },
      503: { description: 'Adapter not configured' },
    },
    handler: async () => {
      const running = await need();
      const { RunInProgressError } = await extractor!;
      try {
        return running.trigger();
      } catch (err) {
        if (err instanceof RunInProgressError) throw new DomainError(ERROR_CODES.CONFLICT, 'OpenClaw run already in progress');
        throw err;
      }
    },
  });

  api.route({
    ...common,
    method: 'post',
    path: '/openclaw/config',
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
    handler: async ({ body }) => ({ config: await (await need()).setConfig(body) }),
  });

  api.route({
    ...common,
    method: 'get',
    path: '/openclaw/state',
    summary: 'Files extracted so far, with their content hashes',
    description,
    before: [localOrAdmin(deps, 'read')],
    responses: {
      200: { description: 'State entries', schema: OpenClawStateResponse },
      401: { description: 'Not loopback and no valid admin token' },
      503: { description: 'Adapter not configured' },
    },
    handler: async () => (await need()).state(),
  });

  // Watching starts in the background so a slow or missing folder never delays the server's start.
  const started = adapter?.then((a) => a.start()).then(
    () => deps.logger.info({ memory_path: openclawMemoryPath }, 'openclaw adapter watching'),
    (err: unknown) => deps.logger.warn({ err }, 'openclaw adapter could not start watching'),
  );

  return {
    adapter,
    async close() {
      await started;
      await (await adapter?.catch(() => undefined))?.stop();
    },
  };
}
