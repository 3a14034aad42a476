import cors from '@koa/cors';
import Router from '@koa/router';
import Koa from 'koa';
import type { Clock } from './clock.js';
import type { Config } from './config.js';
import { bodyParser } from './http/body.js';
import { countSearches } from './http/count-searches.js';
import { SearchCounts } from './store/stats-counters.js';
import { errorMiddleware } from './http/error-middleware.js';
import { requestLog } from './http/request-log.js';
import type { Identity } from './http/identity.js';
import { Api } from './http/route.js';
import type { Logger } from './logger.js';
import { accountRoutes } from './routes/account.js';
import { adminRoutes } from './routes/admin.js';
import { authRoutes } from './routes/auth.js';
import { consentRoutes } from './routes/consent.js';
import { deviceRoutes } from './routes/device.js';
import { extractRoutes } from './routes/extract.js';
import { openclawRoutes } from './routes/openclaw.js';
import { publicRoutes } from './routes/public.js';
import { registryRoutes } from './routes/registry.js';
import { termsRoutes } from './routes/terms.js';
import { wellKnownRoutes } from './routes/wellknown.js';
import type { JwtService } from './services/jwt.js';
import type { MagicLinkService } from './services/magic-link.js';
import { createTermsService } from './services/terms.js';
import type { SkillsService } from './services/skills.js';
import { releaseHeld } from './services/ledger.js';
import type { Database, Queryable } from './store/db.js';

/** Everything a route module may use. Built once per process by createApp. */
export interface AppDeps {
  config: Config;
  clock: Clock;
  logger: Logger;
  db: Database;
  /** Process start, for uptime. */
  startedAt: number;
  /** Public base URL (known once the server listens). */
  baseUrl(): string;
  /** The skills registry: counts (GET /, /stats), lookups, search and its readiness (/health). */
  skills: SkillsService;
  /** Session tokens (GET /auth/verify issues them). */
  jwt: JwtService;
  /** Authentication middleware: deps.identity.requireJwt(), requireKey(scope), requireAdmin('read')… */
  identity: Identity;
  /** Magic-link sign-in (POST /auth/magic-link, the device page's sign-in form). */
  magicLinks: MagicLinkService;
}

/** Headers a browser agent must be able to read from cross-origin responses. */
const EXPOSED_HEADERS = ['PAYMENT-REQUIRED', 'PAYMENT-RESPONSE', 'X-PAYMENT-RESPONSE', 'X-Payment-Required', 'X-Request-Id', 'Retry-After'];

export interface BuiltApp {
  app: Koa;
  api: Api;
  close(): Promise<void>;
}

/** Composition root: builds services and mounts every router. */
export async function createApp(deps: AppDeps): Promise<BuiltApp> {
  const app = new Koa({ proxy: false });
  const router = new Router();
  const api = new Api(router);

  const searches = new SearchCounts(deps.db, deps.logger);
  publicRoutes(api, deps, searches);
  wellKnownRoutes(api, deps);
  registryRoutes(api, deps);
  authRoutes(api, deps);
  accountRoutes(api, deps);
  adminRoutes(api, deps);
  deviceRoutes(api, deps);
  consentRoutes(api, deps);
  extractRoutes(api);
  const openclaw = openclawRoutes(api, deps);
  // First acceptance converts held unassented_pending earnings into withdrawable balance.
  const onFirstTermsAcceptance = [(q: Queryable, accountId: string) => releaseHeld(q, accountId, deps.clock.now())];
  termsRoutes(api, deps, createTermsService({ ...deps, onFirstTermsAcceptance }));

  app.use(requestLog(deps.logger, () => performance.now()));
  app.use(errorMiddleware());
  app.use(cors({ exposeHeaders: EXPOSED_HEADERS, keepHeadersOnError: true }));
  app.use(bodyParser());
  app.use(countSearches(searches));
  app.use(router.routes());
  app.use(router.allowedMethods({ throw: true }));

  return {
    app,
    api,
    close: async () => {
      await openclaw.close();
      await deps.skills.close();
      await searches.close();
    },
  };
}
