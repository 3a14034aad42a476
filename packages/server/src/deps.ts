import type { AccountWriteLimiter } from './services/account-write-limits.js';
import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { Identity } from './http/identity.js';
import type { Logger } from './logger.js';
import type { A2AService } from './services/a2a.js';
import type { X402ExtensionsService } from './services/x402-extensions.js';
import type { AccountsService } from './services/accounts.js';
import type { AuditService } from './services/audit.js';
import type { ConsentService } from './services/consent.js';
import type { DeviceAuthService } from './services/device-auth.js';
import type { JwtService } from './services/jwt.js';
import type { KnowledgeService } from './services/knowledge.js';
import type { LearnService } from './services/learn.js';
import type { LearningsService } from './services/learnings.js';
import type { ReviewService } from './services/review.js';
import type { MagicLinkService } from './services/magic-link.js';
import type { OpenClawService } from './services/openclaw.js';
import type { RateLimiter } from './services/rate-limit.js';
import type { SearchCounts } from './services/search-counts.js';
import type { SkillsService } from './services/skills.js';
import type { TermsService } from './services/terms.js';
import type { UnlockService } from './services/unlock.js';
import type { CheckoutService } from './services/checkout.js';
import type { EarningsService } from './services/earnings.js';
import type { WalletsService } from './services/wallets.js';
import type { Payouts } from './services/payouts.js';
import type { WithdrawalsService } from './services/withdrawals.js';

/**
 * Everything a route module may use: configuration and services, never a store. Built once per process by the
 * composition root (compose.ts); app.ts hands it to every router.
 */
export interface AppDeps {
  config: Config;
  clock: Clock;
  logger: Logger;
  /** Process start, for uptime. */
  startedAt: number;
  /** Public base URL (known once the server listens). */
  baseUrl(): string;
  /** This instance's own address on loopback: the MCP endpoint calls the API through it. */
  localUrl(): string;
  /** Vouches for the caller address the MCP endpoint forwards on its loopback calls (http/forwarded-client.ts). */
  forwardToken: string;
  /** Authentication middleware: deps.identity.requireJwt(), requireJwtOrKey() (scopes from ROUTE_SCOPES), requireAdmin('read')… */
  identity: Identity;
  /** The skills registry: counts (GET /, /stats), lookups, search and its readiness (/health). */
  skills: SkillsService;
  /** Learnings counts for GET /, /health, /categories, /stats. */
  learnings: LearningsService;
  /** Searches served, for GET /stats (counted by the count-searches middleware). */
  searchCounts: SearchCounts;
  /** POST /learn. */
  learn: LearnService;
  /** Review queues (contributor and platform) and retraction. */
  review: ReviewService;
  /** Knowledge search, ratings, stats, contributor profiles; loads a full learning for unlocks. */
  knowledge: KnowledgeService;
  accounts: AccountsService;
  audit: AuditService;
  consent: ConsentService;
  deviceAuth: DeviceAuthService;
  /** Session tokens (GET /auth/verify issues them). */
  jwt: JwtService;
  /** Magic-link sign-in (POST /auth/magic-link, the device page's sign-in form). */
  magicLinks: MagicLinkService;
  /** The OpenClaw memory-file adapter (503 on every call when not configured). */
  openclaw: OpenClawService;
  /** Fixed-window counters in the database (magic links, device codes, per-account write limits). */
  rateLimiter: RateLimiter;
  /** Per-account limits on repeatable writes (keys, consent; POST /learn, ratings, retractions use it too). */
  writeLimits: AccountWriteLimiter;
  terms: TermsService;
  /** A2A JSON-RPC (message/send, tasks/get) answering with the card's skills. */
  a2a: A2AService;
  /** x402 extensions: declarations in 402s, sign-in-with-x, receipts and their key (/.well-known/did.json). */
  x402Extensions: X402ExtensionsService;
  /** GET /knowledge/{id}: credits, x402 payments, the revenue-share ledger. */
  unlocks: UnlockService;
  /** Credit packs: card checkout, processor events, purchases. */
  checkout: CheckoutService;
  /** Wallet proofs and linking. */
  wallets: WalletsService;
  earnings: EarningsService;
  /** Sending payouts and reconciling unresolved ones (the admin settlement routes). */
  payouts: Payouts;
  /** Both withdrawal rails and the card payout onboarding. */
  withdrawals: WithdrawalsService;
}
