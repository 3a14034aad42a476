/** Numeric limits of the spec, in one place for the server, the client and the docs. */
export const LIMITS = {
  discover: { minLimit: 1, maxLimit: 25, defaultLimit: 10 },
  knowledge: { minLimit: 1, maxLimit: 15, defaultLimit: 5 },
  snippetLength: 120,
  titleMin: 10,
  bodyMin: 50,
  tagsMin: 1,
  unlockPriceUsd: { min: 0.05, max: 50, default: 0.05 },
  dynamicPriceUsd: { floor: 0.05, default: 0.08, ceiling: 50 },
  rating: { min: 1, max: 5 },
  quality: { dimensions: 4, dimensionMin: 1, dimensionMax: 5, floorTotal: 14, floorDimension: 3 },
  nearDuplicate: { refuse: 0.85, hold: 0.6 },
  repeatUnlockWindowDays: 30,
  contributorShare: { direct: 0.7, discovery: 0.6 },
  retractionWindowDays: 7,
  magicLinkTtlMinutes: 15,
  magicLinkRate: { perEmail: 5, perIp: 20, windowMinutes: 15 },
  sessionTokenHours: 24,
  cardWithdrawalMinUsd: 0.5,
  pendingPage: { min: 1, max: 200, default: 50 },
  pendingSummaryFullMax: 25,
  extraction: {
    routeMaxBytes: 262_144,
    transcriptMinChars: 100,
    transcriptMaxChars: 500_000,
    chunkSize: 4000,
    chunkOverlap: 200,
    qualityThreshold: 14,
    qualityMinDimension: 3,
    maxLearnings: 20,
  },
  idempotencyHours: 24,
  distinctRatersGate: 3,
  http: { maxBodyBytes: 1024 * 1024, maxJsonDepth: 8 },
  /** Live (unrevoked) API keys an account may hold; one more is 409 api_key_limit. */
  liveApiKeysPerAccount: 50,
  /** GET /account/api-keys pages. */
  apiKeyPage: { min: 1, max: 100, default: 50 },
  /**
   * Writes an account can repeat, limited per account in the database (429 with Retry-After past
   * either window). `learn` takes one extraction run's drafts (maxLearnings, 20) at once. `cardWithdrawal`
   * counts POST /withdraw/processor requests that get as far as asking the card processor; `walletLink` counts
   * POST /account/link-wallet requests that get as far as the sanctions screen. `walletRepeatUnlock` is kept per
   * x402 payer wallet: a fresh authorization, validly signed by the wallet, for a learning it already holds (served
   * free, never settled); a wallet's first paid unlock of a learning is never counted. `walletRefusedPayment` is kept
   * per x402 payer wallet too: its validly signed payments the facilitator (or the chain, at settle) refused for the
   * payer's own reasons (no funds, an authorization it judged invalid), never an outage; taken before the
   * facilitator is asked (payments in flight count) and given back unless refused.
   */
  accountWrites: {
    apiKeyCreate: { perMinute: 10, perHour: 30 },
    cardWithdrawal: { perMinute: 10, perHour: 30 },
    consentChange: { perMinute: 10, perHour: 60 },
    keyedSearch: { perMinute: 120, perHour: 2000 },
    learn: { perMinute: 20, perHour: 100 },
    rating: { perMinute: 20, perHour: 100 },
    retraction: { perMinute: 10, perHour: 30 },
    walletLink: { perMinute: 10, perHour: 30 },
    walletRepeatUnlock: { perMinute: 30, perHour: 300 },
    walletRefusedPayment: { perMinute: 10, perHour: 60 },
  },
  /**
   * POST /mcp: a tools/call carrying an x402 PaymentPayload in _meta nests deeper than other bodies (the payload
   * echoes the Bazaar declaration with the tool's input schema); at most maxBatch messages in one JSON-RPC batch.
   */
  mcpHttp: { maxJsonDepth: 16, maxBatch: 10 },
  /**
   * POST /webhook/processor: the processor's events carry whole objects (a session's discount breakdown, a charge's
   * refunds and their destination details) nested deeper than a request body; an event refused for its depth would be
   * refused on every retry, and a refund it reports never taken back.
   */
  processorWebhook: { maxJsonDepth: 32 },
  /**
   * Requests per client address and minute, counted in the database (429 with Retry-After past it), so one client
   * cannot starve the rest: anonymous POST /discover and POST /knowledge (with the searches the MCP tools make for
   * anonymous callers), and every POST /mcp request (a batch counts once; its tools' calls count on their own routes).
   * `anonymousPaidUnlock`: GET /knowledge/{id} without an API key carrying a payment or SIGN-IN-WITH-X (each verifies
   * a signature, may ask the facilitator or the chain), counted before anything is verified or settled.
   * `walletWithdraw`: POST /withdraw (a wallet signature, the sanctions screen), counted before either.
   * `walletVerify`: POST /wallet/verify (a wallet signature; a wrong one uses no challenge), counted before it.
   */
  perAddress: {
    anonymousDiscover: { perMinute: 120 },
    anonymousKnowledgeSearch: { perMinute: 60 },
    anonymousPaidUnlock: { perMinute: 60 },
    mcp: { perMinute: 120 },
    walletVerify: { perMinute: 30 },
    walletWithdraw: { perMinute: 10 },
  },
  /**
   * Requests per account and minute, counted in the database (429 with Retry-After past it): keyed POST /discover
   * (with the skill searches the MCP tools make for a keyed caller), which an account's keys would otherwise make
   * without bound from any number of addresses.
   */
  perAccount: {
    keyedDiscover: { perMinute: 600 },
  },
} as const;

/** USDC has 6 decimals: money is integer micro-USDC from the edge inward. */
export const MICRO_PER_USD = 1_000_000;
export const usdToMicro = (usd: number): number => Math.round(usd * MICRO_PER_USD);
export const microToUsd = (micro: number): number => micro / MICRO_PER_USD;

export const VERSIONS = {
  openapi: '0.9.4',
  agentCard: '0.9.23',
  a2aSpec: 'a2a/0.1',
  x402: 2,
  extractorAgent: 'svc-autonomous-extractor/0.1.0',
} as const;
