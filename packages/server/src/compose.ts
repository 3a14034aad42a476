import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { AppDeps } from './deps.js';
import { createIdentity } from './http/identity.js';
import type { Logger } from './logger.js';
import { createAccountWriteLimiter } from './services/account-write-limits.js';
import { createAccountsService } from './services/accounts.js';
import { createAuditService } from './services/audit.js';
import { createConsentService } from './services/consent.js';
import { createDeviceAuthService } from './services/device-auth.js';
import { createJwtService } from './services/jwt.js';
import { LearningVectors } from './search/learning-vectors.js';
import { createKnowledgeService } from './services/knowledge.js';
import { createLearnService } from './services/learn.js';
import { createLearningsService } from './services/learnings.js';
import { createReviewService } from './services/review.js';
import { createMagicLinkService } from './services/magic-link.js';
import { createMailer } from './services/mailer.js';
import { createOpenClawService } from './services/openclaw.js';
import { createRateLimiter } from './services/rate-limit.js';
import { createSearchCounts } from './services/search-counts.js';
import { createSkillsService } from './services/skills.js';
import { createTermsService } from './services/terms.js';
import type { Database } from './store/db.js';

export interface ComposeOptions {
  config: Config;
  clock: Clock;
  logger: Logger;
  db: Database;
  /** Session-signing key (loadJwtSecret; read before anything opens, so a bad one stops the start at once). */
  jwtSecret: Uint8Array;
  /** Public base URL; known once the server listens. */
  baseUrl(): string;
  /** The semantic warm-up waits for this so it does not delay the first /health. */
  listening: Promise<unknown>;
}

export interface Composed {
  deps: AppDeps;
  /** Closes the services that hold resources (the OpenClaw watcher, embedding workers, batched counters). */
  close(): Promise<void>;
}

/** The composition root: builds every store-backed service once and wires them together. */
export async function compose({ config, clock, logger, db, jwtSecret, baseUrl, listening }: ComposeOptions): Promise<Composed> {
  const learnings = createLearningsService({ db, clock });
  const skills = await createSkillsService({
    db,
    logger,
    catalogPath: config.catalogPath,
    semanticSearch: config.semanticSearch,
    searchWorkers: config.searchWorkers,
    searchQueueMax: config.searchQueueMax,
    semanticStartsAfter: listening,
    knowledgeHints: learnings,
  });
  const jwt = createJwtService(jwtSecret, clock);
  const rateLimiter = createRateLimiter({ db, clock });
  const writeLimits = createAccountWriteLimiter(rateLimiter);
  const accounts = createAccountsService({ db, clock, writeLimits });
  const mailer = createMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom, dataDir: config.dataDir, logger, clock });
  const searchCounts = createSearchCounts({ db, logger });
  const openclaw = createOpenClawService({ config, clock, logger, baseUrl });
  // Learnings share the skills' sentence model; their vectors are computed in the background once it is ready.
  const vectors = config.semanticSearch ? new LearningVectors(db, skills.search.semantic, logger, clock) : undefined;
  const onVisible = () => void vectors?.fill();
  // Loaded (and missing ones computed) once the model is ready, so the first search does not wait for them.
  if (vectors)
    void skills.search.semantic.settled
      .then(() => Promise.all([vectors.sync(true), vectors.fill()]))
      .catch((err) => logger.warn({ err: (err as Error).message }, 'learning vectors not loaded'));
  const deps: AppDeps = {
    config,
    clock,
    logger,
    startedAt: clock.now(),
    baseUrl,
    identity: createIdentity({ accounts, config, jwt }),
    skills,
    learnings,
    searchCounts,
    learn: createLearnService({ db, clock, rateLimiter, forcedReview: config.forcedReview, onVisible }),
    review: createReviewService({ db, clock, rateLimiter, onVisible }),
    knowledge: createKnowledgeService({ db, clock, rateLimiter, vectors }),
    accounts,
    audit: createAuditService({ db }),
    consent: createConsentService({ db, clock, writeLimits }),
    deviceAuth: createDeviceAuthService({ db, clock, rateLimiter, baseUrl }),
    jwt,
    magicLinks: createMagicLinkService({ db, clock, logger, mailer, jwt, rateLimiter, baseUrl }),
    openclaw,
    rateLimiter,
    writeLimits,
    // Hooks for a first acceptance (e.g. releasing held earnings) are pushed onto terms.onFirstTermsAcceptance here.
    terms: createTermsService({ db, clock, baseUrl }),
  };
  return {
    deps,
    close: async () => {
      await openclaw.close();
      await vectors?.close();
      await skills.close();
      await searchCounts.close();
    },
  };
}
