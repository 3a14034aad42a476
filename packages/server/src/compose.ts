import { randomBytes } from 'node:crypto';
import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { AppDeps } from './deps.js';
import { createIdentity } from './http/identity.js';
import type { Logger } from './logger.js';
import { createAccountWriteLimiter } from './services/account-write-limits.js';
import { createAccountsService } from './services/accounts.js';
import { createA2AService } from './services/a2a.js';
import { createAuditService } from './services/audit.js';
import { createConsentService } from './services/consent.js';
import { createDeviceAuthService } from './services/device-auth.js';
import { releaseHeld } from './services/ledger.js';
import { createUnlockService } from './services/unlock.js';
import { createX402ExtensionsService } from './services/x402-extensions.js';
import { facilitatorSettler, offlineSettler, type Settler } from './payments/settlement.js';
import { longestTransferMs, stripeProcessor } from './payments/card-processor.js';
import { localPayoutSender } from './payments/payout-sender.js';
import { sanctionsScreen } from './payments/sanctions.js';
import { createCheckoutService } from './services/checkout.js';
import { createEarningsService } from './services/earnings.js';
import { createWalletsService } from './services/wallets.js';
import { createPayouts } from './services/payouts.js';
import { createWithdrawalsService } from './services/withdrawals.js';
import { LearningVectors } from './search/learning-vectors.js';
import { createKnowledgeService } from './services/knowledge.js';
import { createLearnService } from './services/learn.js';
import { createJobs, type Job } from './services/jobs.js';
import { createJwtService } from './services/jwt.js';
import { nearDuplicateKeysJob } from './services/near-duplicate-keys.js';
import { retentionJob } from './services/retention.js';
import { createSemanticScreens } from './services/semantic-screens.js';
import { createLearningsService } from './services/learnings.js';
import { createReviewService } from './services/review.js';
import { createMagicLinkService } from './services/magic-link.js';
import { createMailer } from './services/mailer.js';
import { createOpenClawService } from './services/openclaw.js';
import { createRateLimiter } from './services/rate-limit.js';
import { createSearchCounts } from './services/search-counts.js';
import { createCatalogScreen } from './services/catalog-screen.js';
import { createRegistrySync } from './services/registry-sync.js';
import { createSkillsService } from './services/skills.js';
import { createTermsService } from './services/terms.js';
import type { Store } from './store/open.js';
import type { Queryable } from './store/queryable.js';

export interface ComposeOptions {
  config: Config;
  clock: Clock;
  logger: Logger;
  /** The database and the repositories of its dialect (store/open.ts). */
  store: Store;
  /** Session-signing key (loadJwtSecret; read before anything opens, so a bad one stops the start at once). */
  jwtSecret: Uint8Array;
  /** Public base URL; known once the server listens. */
  baseUrl(): string;
  /** This instance's own address on loopback; known once the server listens. */
  localUrl(): string;
  /** The semantic warm-up waits for this so it does not delay the first /health. */
  listening: Promise<unknown>;
  /** The embedding worker's script (tests); the compiled embed-worker by default. */
  embedWorkerFile?: string;
}

export interface Composed {
  deps: AppDeps;
  /** Closes the services that hold resources (the OpenClaw watcher, embedding workers, batched counters). */
  close(): Promise<void>;
}

const RECONCILE_EVERY_MS = 60_000;

/** How x402 payments are settled (docs/payments.md): a facilitator, this server on chain, or not at all. */
async function settlerFor(config: Config, logger: Logger, clock: Clock): Promise<Settler> {
  const chain = config.rpcUrl ? await import('./payments/chain-settlement.js') : undefined;
  if (config.facilitatorUrl) {
    const reader = chain && config.rpcUrl ? chain.chainReader({ rpcUrl: config.rpcUrl }) : undefined;
    if (!reader)
      logger.warn(
        'x402 settlements that time out cannot be reconciled: AXLE_FACILITATOR_URL without AXLE_RPC_URL. ' +
          'A settle the facilitator did not answer, or answered as failed, is recorded failed though it may have paid; ' +
          'set AXLE_RPC_URL (any Base RPC endpoint) so its outcome is read from the chain.',
      );
    return facilitatorSettler(config.facilitatorUrl, {
      chain: reader,
      receiptWaitMs: config.settlementWaitMs,
      timeoutMs: config.facilitatorTimeoutMs,
      clock,
    });
  }
  if (chain && config.rpcUrl && config.settlementKey) {
    return chain.chainSettler({
      rpcUrl: config.rpcUrl,
      privateKey: config.settlementKey,
      receiptWaitMs: config.settlementWaitMs,
      clock,
    });
  }
  logger.warn(
    'x402 payments are NOT being settled: no AXLE_FACILITATOR_URL, and no AXLE_RPC_URL with AXLE_SETTLEMENT_KEY. ' +
      'Authorizations are verified offline; contributor shares stay awaiting_settlement and are never withdrawable.',
  );
  return offlineSettler;
}

/** The composition root: builds every store-backed service once and wires them together. */
export async function compose({
  config,
  clock,
  logger,
  store,
  jwtSecret,
  baseUrl,
  localUrl,
  listening,
  embedWorkerFile,
}: ComposeOptions): Promise<Composed> {
  const { db, learningsSearch } = store;
  const learnings = createLearningsService({ db, learningsSearch, clock });
  const skills = await createSkillsService({
    repo: store.skills,
    db,
    logger,
    catalogPath: config.catalogPath,
    semanticSearch: config.semanticSearch,
    searchWorkers: config.searchWorkers,
    searchQueueMax: config.searchQueueMax,
    modelWaitMs: config.modelWaitMs,
    embedWorkerFile,
    semanticStartsAfter: listening,
    knowledgeHints: learnings,
  });
  // AXLE_REGISTRY_SYNC_URL: one instance (a lease in the database) syncs that registry's servers into the catalog.
  const registrySync = createRegistrySync({
    db,
    clock,
    logger,
    source: config.registrySyncUrl,
    intervalMs: config.registrySyncIntervalMs,
    onChange: () => store.changes.publish('catalog'),
    // The catalog screen's semantic layer shares the skills' sentence model (the regex screen alone when it is off).
    screen: createCatalogScreen({ model: config.semanticSearch ? skills.search.semantic : undefined, logger }),
  });
  const jwt = createJwtService(jwtSecret, clock);
  const x402Extensions = createX402ExtensionsService({ db, clock, baseUrl, secret: jwtSecret });
  const rateLimiter = createRateLimiter({ db, clock });
  const writeLimits = createAccountWriteLimiter(rateLimiter);
  const accounts = createAccountsService({ db, clock, writeLimits });
  const mailer = createMailer({
    smtpUrl: config.smtpUrl,
    smtpTimeoutMs: config.smtpTimeoutMs,
    from: config.mailFrom,
    dataDir: config.dataDir,
    logger,
    clock,
  });
  const searchCounts = createSearchCounts({ db, logger });
  const processor = config.processorSecretKey
    ? await stripeProcessor({
        secretKey: config.processorSecretKey,
        webhookSecret: config.processorWebhookSecret,
        apiUrl: config.processorApiUrl,
        timeoutMs: config.processorTimeoutMs,
      })
    : undefined;
  const sanctions = sanctionsScreen(config.sanctionsListPath);
  const payouts = createPayouts({
    db,
    clock,
    logger,
    sender: localPayoutSender,
    processor,
    sanctions,
    sendWindowMs: longestTransferMs(config.processorTimeoutMs),
  });
  // A first acceptance converts held unassented_pending earnings into withdrawable balance.
  const releaseOnAcceptance = (q: Queryable, accountId: string) => releaseHeld(q, accountId, clock.now());
  const terms = createTermsService({ db, clock, baseUrl, onFirstTermsAcceptance: [releaseOnAcceptance] });
  const openclaw = createOpenClawService({ config, clock, logger, baseUrl });
  // Learnings share the skills' sentence model; their vectors are computed in the background once it is ready.
  const vectors = config.semanticSearch
    ? new LearningVectors(db, skills.search.semantic, logger, clock, () => store.changes.publish('learning_vectors'))
    : undefined;
  // What another instance changed is reloaded here (PostgreSQL's LISTEN/NOTIFY; SQLite: this process only).
  store.changes.subscribe('catalog', () => skills.reloadCatalog());
  if (vectors) store.changes.subscribe('learning_vectors', () => vectors.sync(true));
  const onVisible = () => void vectors?.fill();
  // Loaded (and missing ones computed) once the model is ready, so the first search does not wait for them.
  if (vectors)
    void skills.search.semantic.settled
      .then(() => Promise.all([vectors.sync(true), vectors.fill()]))
      .catch((err) => logger.warn({ err: (err as Error).message }, 'learning vectors not loaded'));
  const knowledge = createKnowledgeService({ db, learningsSearch, clock, writeLimits, vectors });
  const deps: AppDeps = {
    config,
    clock,
    logger,
    startedAt: clock.now(),
    baseUrl,
    localUrl,
    forwardToken: randomBytes(32).toString('base64url'),
    identity: createIdentity({ accounts, config, jwt }),
    skills,
    learnings,
    searchCounts,
    learn: createLearnService({
      db,
      clock,
      writeLimits,
      forcedReview: config.forcedReview,
      onVisible,
      // The screens' semantic side shares the skills' sentence model too (regex screens alone when it is off),
      // through the searches' queue so it sheds load with them.
      semanticScreens: createSemanticScreens({
        model: config.semanticSearch ? skills.search.semantic : undefined,
        logger,
      }),
    }),
    review: createReviewService({ db, clock, writeLimits, onVisible }),
    knowledge,
    accounts,
    audit: createAuditService({ db }),
    consent: createConsentService({ db, clock, writeLimits }),
    deviceAuth: createDeviceAuthService({ db, clock, rateLimiter, writeLimits, baseUrl }),
    jwt,
    magicLinks: createMagicLinkService({ db, clock, logger, mailer, jwt, rateLimiter, baseUrl }),
    openclaw,
    rateLimiter,
    unlocks: createUnlockService({
      db,
      clock,
      logger,
      baseUrl,
      payTo: config.payTo,
      routerAddress: config.routerAddress,
      settler: await settlerFor(config, logger, clock),
      settlementWaitMs: config.settlementWaitMs,
      extensions: x402Extensions,
      writeLimits,
    }),
    terms,
    x402Extensions,
    a2a: createA2AService({ db, clock, skills, knowledge, rateLimiter }),
    checkout: createCheckoutService({ db, clock, baseUrl, rateLimiter, processor }),
    wallets: createWalletsService({ db, clock, rateLimiter, sanctions }),
    earnings: createEarningsService({ db, custodialWithdrawals: config.custodialWithdrawals }),
    payouts,
    withdrawals: createWithdrawalsService({
      db,
      clock,
      logger,
      baseUrl,
      termsUrl: () => terms.termsUrl(),
      enabled: config.custodialWithdrawals,
      sanctions,
      payouts,
      processor,
      rateLimiter,
    }),
    writeLimits,
  };
  const background: Job[] = [
    retentionJob(config.retentionIntervalMs),
    nearDuplicateKeysJob(db, logger),
    // Unresolved payouts (a crash, a processor timeout); runPass also holds an expiring lease across the pass.
    {
      name: 'payout-reconciliation',
      intervalMs: config.payoutReconcileMs,
      outside: true,
      run: () => payouts.runPass(),
    },
    // Submitted x402 settlements.
    ...(deps.unlocks.settlementMode === 'offline'
      ? []
      : [
          {
            name: 'x402-reconciliation',
            intervalMs: RECONCILE_EVERY_MS,
            outside: true,
            run: () => deps.unlocks.reconcilePayments(),
          },
        ]),
    // AXLE_REGISTRY_SYNC_URL: checked every few minutes; the sync itself runs when due, under its own expiring lease.
    ...(config.registrySyncUrl
      ? [
          {
            name: 'registry-sync',
            intervalMs: Math.min(config.registrySyncIntervalMs, 5 * 60_000),
            outside: true,
            run: () => registrySync.tick(),
          },
        ]
      : []),
  ];
  // Each runs once per interval across instances (the job lease); looks a few times per shortest interval,
  // at most once a minute, and as soon as the server listens.
  const jobs = createJobs({
    db,
    clock,
    logger,
    jobs: background,
    pollMs: Math.min(60_000, Math.max(50, Math.min(...background.map((j) => j.intervalMs)) / 4)),
  });
  // A (re)started instance also reconciles at once: an instance killed mid-payout may hold this interval's claim.
  const atStart = background.filter((j) => j.outside && j.name !== 'registry-sync');
  // Kept, so closing waits for it: the database must not close under a pass still running.
  let startPasses: Promise<unknown> | undefined;
  void listening
    .then(() => {
      startPasses = Promise.allSettled([jobs.tick(), ...atStart.map((j) => j.run(db, clock.now()))]);
    })
    .catch(() => undefined);
  return {
    deps,
    close: async () => {
      registrySync.close();
      await startPasses;
      await jobs.close();
      await store.changes.close();
      await openclaw.close();
      await vectors?.close();
      await skills.close();
      await searchCounts.close();
    },
  };
}
