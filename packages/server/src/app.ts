import cors from '@koa/cors';
import Router from '@koa/router';
import { LIMITS } from '@axle/sdk';
import Koa from 'koa';
import type { AppDeps } from './deps.js';
import { bodyParser } from './http/body.js';
import { responseErrorLogger } from './http/client-gone.js';
import { countSearches } from './http/count-searches.js';
import { errorMiddleware } from './http/error-middleware.js';
import { forwardedClient } from './http/forwarded-client.js';
import { requestLog } from './http/request-log.js';
import { Api } from './http/route.js';
import { accountRoutes } from './routes/account.js';
import { adminRoutes } from './routes/admin.js';
import { authRoutes } from './routes/auth.js';
import { consentRoutes } from './routes/consent.js';
import { deviceRoutes } from './routes/device.js';
import { extractRoutes } from './routes/extract.js';
import { openclawRoutes } from './routes/openclaw.js';
import { publicRoutes } from './routes/public.js';
import { knowledgeRoutes } from './routes/knowledge.js';
import { learnRoutes } from './routes/learn.js';
import { registryRoutes } from './routes/registry.js';
import { reviewRoutes } from './routes/review.js';
import { termsRoutes } from './routes/terms.js';
import { unlockRoutes } from './routes/unlock.js';
import { moneyRoutes, PROCESSOR_WEBHOOK_PATH } from './routes/money.js';
import { MCP_PATH, mcpRoutes } from './routes/mcp.js';
import { wellKnownRoutes } from './routes/wellknown.js';

/** Headers a browser agent must be able to read from cross-origin responses. */
const EXPOSED_HEADERS = [
  'PAYMENT-REQUIRED',
  'PAYMENT-RESPONSE',
  'X-PAYMENT-RESPONSE',
  'X-Payment-Required',
  'X-Request-Id',
  'Retry-After',
];

export interface BuiltApp {
  app: Koa;
  api: Api;
}

/** Mounts the middleware and every router on the services the composition root built. */
export function createApp(deps: AppDeps): BuiltApp {
  const app = new Koa({ proxy: false });
  const router = new Router();
  const api = new Api(router);

  publicRoutes(api, deps);
  wellKnownRoutes(api, deps);
  registryRoutes(api, deps);
  knowledgeRoutes(api, deps);
  learnRoutes(api, deps);
  reviewRoutes(api, deps);
  authRoutes(api, deps);
  accountRoutes(api, deps);
  adminRoutes(api, deps);
  deviceRoutes(api, deps);
  consentRoutes(api, deps);
  extractRoutes(api);
  openclawRoutes(api, deps);
  termsRoutes(api, deps);
  unlockRoutes(api, deps);
  moneyRoutes(api, deps);
  mcpRoutes(api, deps);

  app.on('error', responseErrorLogger(deps.logger));
  app.use(forwardedClient(deps.forwardToken));
  app.use(requestLog(deps.logger, () => performance.now()));
  app.use(errorMiddleware());
  app.use(cors({ exposeHeaders: EXPOSED_HEADERS, keepHeadersOnError: true }));
  app.use(
    bodyParser({
      maxDepthByPath: {
        [MCP_PATH]: LIMITS.mcpHttp.maxJsonDepth,
        [PROCESSOR_WEBHOOK_PATH]: LIMITS.processorWebhook.maxJsonDepth,
      },
    }),
  );
  app.use(countSearches(deps.searchCounts));
  app.use(router.routes());
  // Not thrown: the router then sets Allow, which a 405 must carry; the error middleware writes the body.
  app.use(router.allowedMethods());

  return { app, api };
}
