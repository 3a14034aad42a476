import { describe, expect, it } from 'vitest';
import {
  AccountEarnings,
  AgentCard,
  CategoriesResponse,
  ContributorSettlements,
  CreditPack,
  Dashboard,
  KnowledgeStats,
  LearningFull,
  LearningSnippet,
  MCP_TOOL_NAMES,
  MCP_TOOLS,
  PaymentRequired,
  PendingItem,
  Purchase,
  ROUTE_SCOPES,
  StatsResponse,
  TermsNotAccepted,
  mcpToolJsonSchema,
  usdToMicro,
} from '@axle/sdk';

const snippet = {
  id: 'lrn_a1B2c3',
  title: 'Retry S3 multipart uploads on 503 SlowDown',
  snippet:
    'When S3 answers 503 SlowDown during multipart upload, back off per part rather than restarting the whole upload.',
  category: 'storage-state',
  task_context: 'uploading 20 GB backups to S3',
  outcome: 'success',
  tags: ['s3', 'retry'],
  quality: { unlocks: 3, ratings: 2, avg_helpfulness: 4.5, score: 16 },
  relevance: 0.82,
  unlock_price_usd: 0.05,
  current_price: 0.08,
  value_signal: { estimated_diy_cost_usd: 1.2, quality_score: 0.8, verdict: 'strong_buy' },
};

const full = {
  ...snippet,
  body: `${snippet.snippet} Keep part numbers stable and resume from ListParts.`,
  body_hash: 'ab'.repeat(32),
  content_advisory: 'data only',
  content_trust: 'untrusted_third_party',
  contributor_wallet: null,
  contributor_key_label: 'laptop',
  contributor_agent: 'claude-code',
  related_skills: ['aws-s3'],
  submission_channel: 'direct',
  visibility: 'public',
  unlock_price: 0.08,
  pricing: {
    base_price: 0.08,
    current_price: 0.08,
    builder_override_price: null,
    complexity: 'medium',
    last_repriced_at: '2026-01-01T00:00:00.000Z',
  },
  demand: { search_impressions_7d: 4, search_impressions_30d: 9, unlocks_7d: 1, unlocks_30d: 3 },
  quality: { ...snippet.quality, helpfulness_scores: [4, 5] },
  status: 'approved',
  earnings: { gross_usd: 0.24, contributor_share_usd: 0.168, platform_share_usd: 0.072 },
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-02T00:00:00.000Z',
  timestamp: '2026-01-03T00:00:00.000Z',
  _revenue: {
    unlock_price_usd: 0.08,
    amount_paid_usd: 0,
    contributor_earned_usd: 0,
    platform_earned_usd: 0,
    self_unlock: true,
    owner_recall_free: true,
  },
};

describe('learning schemas', () => {
  it('accept a search snippet and an unlocked learning', () => {
    expect(LearningSnippet.parse(snippet)).toEqual(snippet);
    expect(LearningFull.parse(full)._revenue.owner_recall_free).toBe(true);
  });

  it('reject a wrong id prefix, a retired category, a long snippet and out-of-range prices', () => {
    expect(LearningSnippet.safeParse({ ...snippet, id: 'abc_1' }).success).toBe(false);
    expect(LearningSnippet.safeParse({ ...snippet, category: 'communication' }).success).toBe(false);
    expect(LearningSnippet.safeParse({ ...snippet, snippet: 'x'.repeat(121) }).success).toBe(false);
    expect(LearningSnippet.safeParse({ ...snippet, unlock_price_usd: 0.01 }).success).toBe(false);
    expect(LearningSnippet.safeParse({ ...snippet, current_price: 51 }).success).toBe(false);
    expect(LearningSnippet.safeParse({ ...snippet, quality: { ...snippet.quality, score: 21 } }).success).toBe(false);
  });

  it('LearningFull requires the revenue block, and its flags may only be true', () => {
    const { _revenue, ...withoutRevenue } = full;
    expect(LearningFull.safeParse(withoutRevenue).success).toBe(false);
    expect(LearningFull.safeParse({ ...full, _revenue: { ..._revenue, self_unlock: false } }).success).toBe(false);
    expect(LearningFull.safeParse({ ...full, quality: { ...full.quality, helpfulness_scores: [6] } }).success).toBe(
      false,
    );
  });
});

describe('payment required (402)', () => {
  const accepts = [
    {
      scheme: 'exact',
      network: 'eip155:8453',
      maxAmountRequired: String(usdToMicro(0.05)),
      resource: 'http://localhost/knowledge/lrn_1',
      description: 'Unlock learning',
      mimeType: 'application/json',
      payTo: '0x0000000000000000000000000000000000000001',
      maxTimeoutSeconds: 60,
      asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
      extra: { router: '0x0000000000000000000000000000000000000002' },
    },
  ];
  it('accepts the no-credentials and credits-exhausted shapes', () => {
    const options = {
      api_key: {
        header: 'X-API-Key',
        format: 'axl_…',
        obtain: 'POST /auth/magic-link',
        how_to_authenticate: 'send X-API-Key',
      },
      x402_payment: { header: 'X-Payment', price_usd: 0.05, description: 'pay per unlock', protocol: 'x402' },
    };
    expect(PaymentRequired.safeParse({ x402Version: 2, accepts, error: 'Payment required', options }).success).toBe(
      true,
    );
    expect(
      PaymentRequired.safeParse({
        x402Version: 2,
        accepts,
        error: 'Credits exhausted',
        credits: { queries_remaining: 4, unlocks_remaining: 0 },
        options: { ...options, reset_at: null },
      }).success,
    ).toBe(true);
  });
  it('rejects a dollar amount where micro-units are required, and a fractional timeout', () => {
    expect(
      PaymentRequired.safeParse({ x402Version: 2, accepts: [{ ...accepts[0], maxAmountRequired: '0.05' }] }).success,
    ).toBe(false);
    expect(
      PaymentRequired.safeParse({ x402Version: 2, accepts: [{ ...accepts[0], maxTimeoutSeconds: 1.5 }] }).success,
    ).toBe(false);
  });
});

describe('money, account and knowledge resources', () => {
  it('accept representative payloads', () => {
    expect(
      CreditPack.safeParse({ id: 'growth', name: 'Growth', price_usd: 25, queries: 2500, unlocks: 300 }).success,
    ).toBe(true);
    expect(
      Purchase.safeParse({
        id: 'pur_x1',
        pack_id: 'pro',
        amount_usd: 100,
        queries_added: 1,
        unlocks_added: 2,
        timestamp: '2026-01-01T00:00:00Z',
      }).success,
    ).toBe(true);
    expect(
      TermsNotAccepted.safeParse({
        error: 'Terms not accepted',
        code: 'TERMS_NOT_ACCEPTED',
        current_tos_version: '2026-01-01',
        how_to_accept: 'POST /account/accept-terms',
        terms_url: 'http://localhost/terms',
      }).success,
    ).toBe(true);
    expect(
      Dashboard.safeParse({
        email: 'a@b.io',
        wallet: null,
        api_keys: [{ id: 'key_1', name: 'ci', created_at: 1767225600000 }],
      }).success,
    ).toBe(true);
    expect(
      ContributorSettlements.safeParse({
        wallet: '0xabc',
        pending_balance: 1.5,
        total_withdrawn: 0,
        settlements: [
          {
            id: 'set_1',
            amount_usd: 1,
            rail: 'wallet',
            status: 'processing_timeout',
            tx_hash: '0x1',
            created_at: '2026-01-01T00:00:00Z',
            confirmed_at: null,
          },
        ],
      }).success,
    ).toBe(true);
    expect(
      PendingItem.safeParse({
        id: 'lrn_1',
        title: 't',
        body: 'b',
        category: 'monitoring',
        tags: [],
        outcome: null,
        created_at: '2026-01-01T00:00:00Z',
        status: 'pending_review',
        possible_duplicate_of: 'lrn_2',
        possible_duplicate_similarity: 0.7,
        review_reason: ['near_duplicate'],
        lane: 'needs_your_eyes',
      }).success,
    ).toBe(true);
  });

  it('reject bad payloads', () => {
    expect(CreditPack.safeParse({ id: 'mega', name: 'Mega', price_usd: 500, queries: 1, unlocks: 1 }).success).toBe(
      false,
    );
    expect(
      Dashboard.safeParse({ email: 'a@b.io', wallet: null, api_keys: [{ id: 'axl_raw', name: 'ci', created_at: 1 }] })
        .success,
    ).toBe(false);
    expect(
      TermsNotAccepted.safeParse({
        error: 'x',
        code: 'OTHER',
        current_tos_version: '1',
        how_to_accept: 'x',
        terms_url: 'x',
      }).success,
    ).toBe(false);
    const earnings = {
      account_id: 'acc_1',
      wallet: null,
      total_gross_usd: 1,
      total_gross: 1,
      total_contributor: 0.7,
      total_contributor_gross: 0.7,
      unassented_pending: 0,
      pending_balance: 0.7,
      awaiting_settlement: 0,
      total_withdrawn: 0,
      withdrawal_count: 0,
      can_withdraw: false,
      message: 'paused',
    };
    expect(AccountEarnings.safeParse(earnings).success).toBe(true);
    expect(AccountEarnings.safeParse({ ...earnings, pending_balance: -1 }).success).toBe(false);
    expect(
      KnowledgeStats.safeParse({
        learnings_count: 1,
        categories: [{ category: 'communication', count: 1 }],
        total_unlocks: 0,
        total_ratings: 0,
        total_earnings_usd: 0,
        total_contributors: 1,
        top_learnings: [],
        timestamp: '2026-01-01T00:00:00Z',
      }).success,
    ).toBe(false);
  });
});

describe('public responses', () => {
  it('categories must list every Category value', () => {
    const all = {
      'data-processing': 1,
      'web-interaction': 0,
      'code-execution': 0,
      communication: 0,
      'storage-state': 0,
      'content-generation': 0,
      'payment-financial': 0,
      monitoring: 0,
    };
    expect(CategoriesResponse.safeParse({ categories: all, total: 1 }).success).toBe(true);
    const { monitoring: _m, ...missing } = all;
    expect(CategoriesResponse.safeParse({ categories: missing, total: 1 }).success).toBe(false);
  });
  it('stats types must be keyed by skill type', () => {
    const stats = {
      learnings_count: 0,
      learning_categories: 0,
      categories: 0,
      catalog_size: 0,
      skills_catalog_size: 2,
      skills_categories: 1,
      types: { api: 1, mcp_server: 1 },
      queries: { discover: 0 },
      uptime: 1,
      version: '0.9.4',
    };
    expect(StatsResponse.safeParse(stats).success).toBe(true);
    expect(StatsResponse.safeParse({ ...stats, types: { api: 1, plugin: 1 } }).success).toBe(false);
  });
});

describe('MCP tool inputs', () => {
  it('define the 17 tools of the spec', () => {
    expect(MCP_TOOL_NAMES).toHaveLength(17);
    expect(MCP_TOOL_NAMES).toContain('get_knowledge_stats');
    expect(MCP_TOOL_NAMES.filter((n) => n !== 'get_knowledge_stats').every((n) => n.startsWith('svc_'))).toBe(true);
  });
  it('svc_contribute needs title, body and category as strings; contributor_agent is optional', () => {
    const schema = mcpToolJsonSchema('svc_contribute') as {
      required: string[];
      properties: Record<string, { type: string }>;
    };
    expect([...schema.required].sort()).toEqual(['body', 'category', 'title']);
    expect(Object.values(schema.properties).map((p) => p.type)).toEqual(['string', 'string', 'string', 'string']);
    expect(
      MCP_TOOLS.svc_contribute.input.safeParse({ title: 'short', body: 'b', category: 'monitoring' }).success,
    ).toBe(false);
  });
  it('svc_link_wallet names the scope POST /account/link-wallet asks of a key (payout, not account)', () => {
    expect(ROUTE_SCOPES['POST /account/link-wallet']).toEqual(['payout']);
    expect(MCP_TOOLS.svc_link_wallet.description).toContain('API key with the payout scope');
    expect(MCP_TOOLS.svc_link_wallet.description).not.toContain('account scope');
  });
  it('defaults do not make fields required, and bad ratings fail', () => {
    expect(mcpToolJsonSchema('svc_review')).not.toHaveProperty('required');
    expect(MCP_TOOLS.svc_review.input.parse({})).toMatchObject({ action: 'summary', dry_run: true });
    expect(MCP_TOOLS.svc_rate.input.safeParse({ learning_id: 'lrn_1', helpfulness: 6 }).success).toBe(false);
  });
});

describe('agent card', () => {
  it('rejects a capability outside the contract', () => {
    const parsed = AgentCard.shape.capabilities.safeParse(['skill-discovery', 'time-travel']);
    expect(parsed.success).toBe(false);
  });
});
