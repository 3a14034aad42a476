import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { LIMITS, z } from '@axle/sdk';
import { registryUrlProblem } from './catalog/registry-url.js';
import type { ConnectionLimits } from './http/connections.js';
import { DEFAULT_MODEL_WAIT_MS, DEFAULT_SEARCH_QUEUE_MAX } from './search/embedder.js';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', ''])
  .optional()
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

/** A fixed development wallet, so a fresh install runs without configuration; operators set AXLE_PAY_TO. */
const DEV_PAY_TO = '0x000000000000000000000000000000000000a11e';

/** The sanctions list shipped with the server (src/ and dist/ sit at the same depth). */
const BUNDLED_SANCTIONS_LIST = fileURLToPath(new URL('../sanctions/blocked-wallets.txt', import.meta.url));

/** Environment -> typed config. The only module that reads process.env. */
const Env = z
  .object({
    PORT: z.coerce.number().int().min(0).max(65535).default(8402),
    HOST: z.string().default('0.0.0.0'),
    AXLE_DATA_DIR: z.string().default('./data'),
    AXLE_DATABASE_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL (unset: the embedded SQLite file)')
      .optional(),
    AXLE_DATABASE_POOL: z.coerce.number().int().min(1).max(200).default(10),
    AXLE_DATABASE_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
    AXLE_MIGRATION_LOCK_WAIT_MS: z.coerce.number().int().min(100).max(86_400_000).default(300_000),
    AXLE_RETENTION_INTERVAL_MS: z.coerce.number().int().min(100).default(3_600_000),
    AXLE_BASE_URL: z.string().url().optional(),
    AXLE_CATALOG: z.string().optional(),
    AXLE_REGISTRY_SYNC_URL: z
      .string()
      .superRefine((url, ctx) => {
        const problem = registryUrlProblem(url);
        if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
      })
      .optional(),
    AXLE_REGISTRY_SYNC_INTERVAL_MINUTES: z.coerce
      .number()
      .int()
      .min(5)
      .max(7 * 24 * 60)
      .default(60),
    AXLE_SEMANTIC_SEARCH: z.enum(['on', 'off']).default('on'),
    AXLE_SEARCH_WORKERS: z.coerce.number().int().min(1).max(16).optional(),
    AXLE_SEARCH_QUEUE_MAX: z.coerce.number().int().min(0).max(10_000).default(DEFAULT_SEARCH_QUEUE_MAX),
    AXLE_ANONYMOUS_DISCOVER_PER_MINUTE: z.coerce
      .number()
      .int()
      .min(1)
      .max(1_000_000_000)
      .default(LIMITS.perAddress.anonymousDiscover.perMinute),
    AXLE_KEYED_DISCOVER_PER_MINUTE: z.coerce
      .number()
      .int()
      .min(1)
      .max(1_000_000_000)
      .default(LIMITS.perAccount.keyedDiscover.perMinute),
    AXLE_MODEL_WAIT_MS: z.coerce.number().int().min(1).max(60_000).default(DEFAULT_MODEL_WAIT_MS),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    AXLE_ADMIN_TOKEN: z.string().min(1).optional(),
    AXLE_ADMIN_READ_TOKEN: z.string().min(1).optional(),
    AXLE_FORCED_REVIEW: bool,
    AXLE_OPERATOR: z.string().min(1).default('Axle'),
    AXLE_PAY_TO: z
      .string()
      .regex(/^0x[0-9a-fA-F]{40}$/, 'must be an EVM address (0x + 40 hex digits)')
      .default(DEV_PAY_TO),
    AXLE_FACILITATOR_URL: z.string().url().optional(),
    AXLE_FACILITATOR_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(15_000),
    AXLE_RPC_URL: z.string().url().optional(),
    AXLE_SETTLEMENT_KEY: z
      .string()
      .regex(/^0x[0-9a-fA-F]{64}$/, 'must be a private key (0x + 64 hex digits)')
      .optional(),
    AXLE_SETTLEMENT_WAIT_MS: z.coerce.number().int().min(0).max(120_000).default(20_000),
    AXLE_ROUTER_ADDRESS: z
      .string()
      .regex(/^0x[0-9a-fA-F]{40}$/, 'must be an EVM address (0x + 40 hex digits)')
      .optional(),
    AXLE_PROCESSOR_SECRET_KEY: z.string().min(1).optional(),
    AXLE_PROCESSOR_WEBHOOK_SECRET: z.string().min(1).optional(),
    AXLE_PROCESSOR_API_URL: z.string().url().optional(),
    AXLE_PROCESSOR_TIMEOUT_MS: z.coerce.number().int().min(1).default(15_000),
    AXLE_PAYOUT_RECONCILE_MS: z.coerce.number().int().min(1_000).default(60_000),
    AXLE_CUSTODIAL_WITHDRAWALS: bool,
    AXLE_SANCTIONS_LIST: z.string().min(1).optional(),
    AXLE_JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
    AXLE_SMTP_URL: z
      .string()
      .regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL')
      .optional(),
    AXLE_MAIL_FROM: z.string().min(3).default('Axle <no-reply@localhost>'),
    AXLE_SMTP_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
    AXLE_TRUST_PROXY: bool,
    AXLE_OPENCLAW_MEMORY_PATH: z.string().min(1).optional(),
    AXLE_OPENCLAW_API_KEY: z.string().min(1).optional(),
    AXLE_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(1).default(10_000),
    AXLE_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1).default(30_000),
    AXLE_KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().min(1).default(5_000),
    AXLE_MAX_CONNECTIONS: z.coerce.number().int().min(1).default(1_000),
  })
  .refine((e) => !e.AXLE_SETTLEMENT_KEY || e.AXLE_RPC_URL, {
    path: ['AXLE_SETTLEMENT_KEY'],
    message: 'needs AXLE_RPC_URL (the chain to settle on)',
  })
  .refine((e) => e.AXLE_HEADERS_TIMEOUT_MS <= e.AXLE_REQUEST_TIMEOUT_MS, {
    path: ['AXLE_HEADERS_TIMEOUT_MS'],
    message: 'must not exceed AXLE_REQUEST_TIMEOUT_MS',
  });

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** PostgreSQL shared by every instance; unset, the embedded SQLite file <dataDir>/axle.db. */
  databaseUrl?: string;
  /** PostgreSQL connections this instance holds at most. */
  databasePool: number;
  /** Longest a PostgreSQL statement may run or wait for a lock before it is cancelled (503 database_unavailable). */
  databaseStatementTimeoutMs: number;
  /** Longest a start waits for another instance's migrations (PostgreSQL's migration lock) before it fails. */
  migrationLockWaitMs: number;
  /** How often the retention job runs, once across all instances. */
  retentionIntervalMs: number;
  /** Public base URL; when unset it is derived from the bound port at listen time. */
  baseUrl?: string;
  catalogPath?: string;
  /** MCP registry (v0.1 API) whose servers join the catalog, synced every registrySyncIntervalMs by one instance. */
  registrySyncUrl?: string;
  registrySyncIntervalMs: number;
  semanticSearch: boolean;
  /** Embedding worker threads, each with its own copy of the model; by default one per core, at most 2. */
  searchWorkers: number;
  /** Searches that may wait for an embedding worker; past it /discover answers lexically (`search_mode`). */
  searchQueueMax: number;
  /** Anonymous POST /discover requests a client address may make a minute (429 past it). */
  anonymousDiscoverPerMinute: number;
  /** POST /discover requests with an API key an account may make a minute (429 past it). */
  keyedDiscoverPerMinute: number;
  /** How long a request waits for the sentence model; past it search answers lexically, screens run regex-only. */
  modelWaitMs: number;
  logLevel: string;
  adminToken?: string;
  adminReadToken?: string;
  forcedReview: boolean;
  /** Who runs this installation, shown on GET / and in the agent card. */
  operator: string;
  /** Platform wallet receiving x402 payments. */
  payTo: string;
  /** x402 facilitator: settles payments before they are served (docs/payments.md, settlement modes). */
  facilitatorUrl?: string;
  /** How long one call to the facilitator may take before its outcome counts as unknown (reconciled later). */
  facilitatorTimeoutMs: number;
  /** Chain RPC: with settlementKey the server settles payments itself; with a facilitator it checks its answers. */
  rpcUrl?: string;
  /** Private key of the account that submits transferWithAuthorization (pays the gas). */
  settlementKey?: `0x${string}`;
  /** How long an unlock waits for a settlement's receipt before serving it as submitted (reconciled later). */
  settlementWaitMs: number;
  /** Router contract: non-custodial mode (payTo is the router, extra.router names it). */
  routerAddress?: string;
  /** Card processor API key; without it checkout and card payouts answer 503. */
  processorSecretKey?: string;
  /** Signing secret of the processor's webhook events. */
  processorWebhookSecret?: string;
  /** Processor API base when not the provider's own (a stand-in on loopback in tests). */
  processorApiUrl?: string;
  /** How long one card-processor call may take before its outcome counts as unknown. */
  processorTimeoutMs: number;
  /** How often unresolved payouts are reconciled (also once at start). */
  payoutReconcileMs: number;
  /** When false both withdrawal rails answer 503 withdraw_paused_noncustodial_migration. */
  custodialWithdrawals: boolean;
  /** Blocked wallet addresses, one per line; the bundled list when unset. */
  sanctionsListPath: string;
  /** Session-token signing key; when unset one is generated into the data dir. */
  jwtSecret?: string;
  /** Magic links go here; when unset they are written to <dataDir>/outbox/. */
  smtpUrl?: string;
  /** From header of sign-in mail. */
  mailFrom: string;
  /** How long a sign-in request waits on the SMTP server (to connect, to greet, between replies). */
  smtpTimeoutMs: number;
  /** Take the client IP from X-Forwarded-For (only behind a proxy that sets it). */
  trustProxy: boolean;
  /** OpenClaw workspace folder; when set the server runs the memory-file adapter in-process. */
  openclawMemoryPath?: string;
  /** Key the in-process adapter submits drafts with (POST /learn); without it drafts stay queued on disk. */
  openclawApiKey?: string;
  /** Timeouts and the cap on open connections (see http/connections.ts and docs/limits.md). */
  connections: ConnectionLimits;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = Env.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`Invalid configuration: ${issue.path.join('.')}: ${issue.message}`);
  }
  const e = parsed.data;
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir: path.resolve(e.AXLE_DATA_DIR),
    databaseUrl: e.AXLE_DATABASE_URL,
    databasePool: e.AXLE_DATABASE_POOL,
    databaseStatementTimeoutMs: e.AXLE_DATABASE_STATEMENT_TIMEOUT_MS,
    migrationLockWaitMs: e.AXLE_MIGRATION_LOCK_WAIT_MS,
    retentionIntervalMs: e.AXLE_RETENTION_INTERVAL_MS,
    baseUrl: e.AXLE_BASE_URL?.replace(/\/+$/, ''),
    catalogPath: e.AXLE_CATALOG,
    registrySyncUrl: e.AXLE_REGISTRY_SYNC_URL,
    registrySyncIntervalMs: e.AXLE_REGISTRY_SYNC_INTERVAL_MINUTES * 60_000,
    semanticSearch: e.AXLE_SEMANTIC_SEARCH === 'on',
    searchWorkers: e.AXLE_SEARCH_WORKERS ?? Math.min(2, os.availableParallelism()),
    searchQueueMax: e.AXLE_SEARCH_QUEUE_MAX,
    anonymousDiscoverPerMinute: e.AXLE_ANONYMOUS_DISCOVER_PER_MINUTE,
    keyedDiscoverPerMinute: e.AXLE_KEYED_DISCOVER_PER_MINUTE,
    modelWaitMs: e.AXLE_MODEL_WAIT_MS,
    logLevel: e.LOG_LEVEL,
    adminToken: e.AXLE_ADMIN_TOKEN,
    adminReadToken: e.AXLE_ADMIN_READ_TOKEN,
    forcedReview: e.AXLE_FORCED_REVIEW,
    operator: e.AXLE_OPERATOR,
    payTo: e.AXLE_PAY_TO,
    facilitatorUrl: e.AXLE_FACILITATOR_URL?.replace(/\/+$/, ''),
    facilitatorTimeoutMs: e.AXLE_FACILITATOR_TIMEOUT_MS,
    rpcUrl: e.AXLE_RPC_URL,
    settlementKey: e.AXLE_SETTLEMENT_KEY as `0x${string}` | undefined,
    settlementWaitMs: e.AXLE_SETTLEMENT_WAIT_MS,
    routerAddress: e.AXLE_ROUTER_ADDRESS,
    processorSecretKey: e.AXLE_PROCESSOR_SECRET_KEY,
    processorWebhookSecret: e.AXLE_PROCESSOR_WEBHOOK_SECRET,
    processorApiUrl: e.AXLE_PROCESSOR_API_URL,
    processorTimeoutMs: e.AXLE_PROCESSOR_TIMEOUT_MS,
    payoutReconcileMs: e.AXLE_PAYOUT_RECONCILE_MS,
    custodialWithdrawals: e.AXLE_CUSTODIAL_WITHDRAWALS,
    sanctionsListPath: path.resolve(e.AXLE_SANCTIONS_LIST ?? BUNDLED_SANCTIONS_LIST),
    jwtSecret: e.AXLE_JWT_SECRET,
    smtpUrl: e.AXLE_SMTP_URL,
    mailFrom: e.AXLE_MAIL_FROM,
    smtpTimeoutMs: e.AXLE_SMTP_TIMEOUT_MS,
    trustProxy: e.AXLE_TRUST_PROXY,
    openclawMemoryPath: e.AXLE_OPENCLAW_MEMORY_PATH && path.resolve(e.AXLE_OPENCLAW_MEMORY_PATH),
    openclawApiKey: e.AXLE_OPENCLAW_API_KEY,
    connections: {
      headersTimeoutMs: e.AXLE_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: e.AXLE_REQUEST_TIMEOUT_MS,
      keepAliveTimeoutMs: e.AXLE_KEEP_ALIVE_TIMEOUT_MS,
      maxConnections: e.AXLE_MAX_CONNECTIONS,
    },
  };
}
