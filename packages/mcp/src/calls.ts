import type { McpToolName } from '@axle/sdk';

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
export interface HttpCall {
  method: Method;
  path: string;
  body?: unknown;
  query?: Record<string, string | number | boolean | undefined>;
}

type Args = Record<string, unknown>;
const seg = (v: unknown) => encodeURIComponent(String(v));

/**
 * Each tool is the HTTP endpoint of the spec it mirrors: this table is the whole mapping,
 * so the MCP server holds no logic the API does not.
 */
export const TOOL_CALLS: Record<McpToolName, (a: Args) => HttpCall> = {
  svc_discover: (a) => ({ method: 'POST', path: '/discover', body: a }),
  svc_knowledge: (a) => ({ method: 'POST', path: '/knowledge', body: a }),
  svc_unlock: (a) => ({ method: 'GET', path: `/knowledge/${seg(a.learning_id)}` }),
  // POST /learn also requires tags, task_context and outcome; the tool's input (spec) has only
  // title, body, category and contributor_agent, so the rest gets neutral values.
  svc_contribute: (a) => ({
    method: 'POST',
    path: '/learn',
    body: { tags: [String(a.category)], task_context: 'Contributed through the MCP tool svc_contribute', outcome: 'success', ...a },
  }),
  svc_categories: () => ({ method: 'GET', path: '/categories' }),
  svc_stats: () => ({ method: 'GET', path: '/stats' }),
  svc_verify_wallet: (a) =>
    a.signature === undefined
      ? { method: 'POST', path: '/wallet/challenge', body: { wallet: a.wallet } }
      : { method: 'POST', path: '/wallet/verify', body: { wallet: a.wallet, signature: a.signature } },
  svc_contributor: (a) => ({ method: 'GET', path: `/contributor/${seg(a.wallet)}` }),
  svc_rate: (a) => ({ method: 'POST', path: `/knowledge/${seg(a.learning_id)}/rate`, body: { helpfulness: a.helpfulness, notes: a.notes } }),
  svc_skill: (a) => ({ method: 'GET', path: `/skill/${seg(a.id)}` }),
  svc_link_wallet: (a) => ({ method: 'POST', path: '/account/link-wallet', body: { wallet: a.wallet } }),
  svc_account_earnings: () => ({ method: 'GET', path: '/account/earnings' }),
  svc_settlements: (a) => ({ method: 'GET', path: `/contributor/${seg(a.wallet)}/settlements` }),
  svc_withdraw: (a) =>
    a.rail === 'processor'
      ? { method: 'POST', path: '/withdraw/processor', body: { amount_usd: a.amount_usd } }
      : { method: 'POST', path: '/withdraw', body: { wallet: a.wallet, signature: a.signature, timestamp: a.timestamp } },
  svc_accept_terms: (a) => ({ method: 'POST', path: '/account/accept-terms', body: a }),
  svc_review: (a) => {
    switch (a.action) {
      case 'approve':
      case 'reject':
        return { method: 'POST', path: `/account/pending/${a.action}`, body: { ids: a.ids } };
      case 'approve_clean':
        return { method: 'POST', path: '/account/pending/approve-clean', body: { dry_run: a.dry_run } };
      default:
        return {
          method: 'GET',
          path: '/account/pending/summary',
          query: { lane: a.lane as string, flag: a.flag as string, limit: a.limit as number, offset: a.offset as number, full: a.full ? 1 : undefined },
        };
    }
  },
  get_knowledge_stats: () => ({ method: 'GET', path: '/knowledge/stats' }),
};
