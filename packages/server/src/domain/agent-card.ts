import {
  type A2AAgentCard,
  AGENT_CAPABILITIES,
  type AGENT_SKILL_IDS,
  type AgentCard,
  LIMITS,
  MCP_TOOL_NAMES,
  VERSIONS,
  mcpToolJsonSchema,
} from '@axle/sdk';

/** Native USDC on Base (eip155:8453). */
export const USDC_BASE = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
export const PAYMENT_NETWORK = 'eip155:8453';
/** Where A2A JSON-RPC is served: 1.0 with the header A2A-Version: 1.0, else 0.3. */
export const A2A_PATH = '/a2a';
/** Where the A2A 1.0 HTTP+JSON binding is served. */
export const A2A_REST_PATH = '/a2a/rest';

export interface CardInput {
  baseUrl: string;
  operator: string;
  /** Unset: this server verifies and settles payments itself. */
  facilitatorUrl?: string;
  /** Routes the server actually serves, "METHOD /path"; the card lists only these. */
  mounted: ReadonlySet<string>;
  createdAt: string;
}

const NAME = 'Axle';
const DESCRIPTION =
  'Agent capability registry and knowledge marketplace. Search a catalog of web APIs and MCP servers for free; search operational learnings from real agent tasks for free and unlock full learnings per item with an x402 USDC payment on Base or a prepaid credit. Contributors earn 70% of each direct unlock (60% when discovery-driven).';

const SKILLS: Array<{
  id: (typeof AGENT_SKILL_IDS)[number];
  name: string;
  description: string;
  tags: string[];
  examples: string[];
}> = [
  {
    id: 'discover',
    name: 'Skill discovery',
    description: 'Natural-language search over web APIs and MCP servers, ranked, with connection details. Free.',
    tags: ['search', 'registry', 'mcp', 'api'],
    examples: ['Find an API that converts currencies', 'MCP server for reading PostgreSQL databases'],
  },
  {
    id: 'knowledge-search',
    name: 'Knowledge search',
    description:
      'Search learnings other agents contributed from real tasks; returns snippets, prices and value signals. Free.',
    tags: ['knowledge', 'search', 'learnings'],
    examples: [
      'How to handle S3 SlowDown errors during multipart upload',
      'Stripe webhook signature fails behind a proxy',
    ],
  },
  {
    id: 'knowledge-contribute',
    name: 'Contribute a learning',
    description:
      'Submit operational knowledge (title, body, category, tags, task context, outcome) and earn on every unlock.',
    tags: ['knowledge', 'contribute', 'earn'],
    examples: ['Share the retry policy that fixed flaky GitHub API pagination'],
  },
  {
    id: 'knowledge-unlock',
    name: 'Unlock a learning',
    description: `Get the full body of a learning: pay its dynamic price (from $${LIMITS.dynamicPriceUsd.floor.toFixed(2)}) with x402, or spend one unlock credit with an API key.`,
    tags: ['knowledge', 'payment', 'x402'],
    examples: ['Unlock lrn_8fK2pQ7xVb3n'],
  },
  {
    id: 'rate-learning',
    name: 'Rate a learning',
    description: 'Rate the helpfulness of an unlocked learning from 1 to 5; ratings move quality and ranking.',
    tags: ['knowledge', 'quality', 'feedback'],
    examples: ['Rate lrn_8fK2pQ7xVb3n 5: worked first time'],
  },
  {
    id: 'contributor-dashboard',
    name: 'Contributor dashboard',
    description: 'Earnings by wallet or account, settlements, and self-review of held learnings.',
    tags: ['earnings', 'account', 'review'],
    examples: ['Show earnings for 0x…', 'List my held learnings'],
  },
  {
    id: 'autonomous-extraction',
    name: 'Autonomous extraction',
    description:
      "Learnings are extracted from session transcripts on the contributor's machine, scrubbed locally and submitted as drafts to POST /learn; the server-side POST /extract answers 410 extraction_client_side.",
    tags: ['extraction', 'client-side', 'privacy'],
    examples: ['axle setup, then approve drafts with axle review'],
  },
];

/** Agent-facing endpoints the card advertises; each appears only once the server mounts it. */
const FREE: Array<{ method: string; path: string; description: string }> = [
  { method: 'GET', path: '/', description: 'Service overview' },
  { method: 'GET', path: '/health', description: 'Liveness' },
  { method: 'GET', path: '/categories', description: 'Learnings per category' },
  { method: 'GET', path: '/stats', description: 'Platform statistics' },
  { method: 'POST', path: '/discover', description: 'Search skills' },
  { method: 'GET', path: '/skill/{id}', description: 'One skill by id or slug' },
  { method: 'POST', path: '/knowledge', description: 'Search learnings (snippets)' },
  { method: 'GET', path: '/knowledge/stats', description: 'Knowledge catalog statistics' },
  { method: 'POST', path: '/knowledge/{id}/rate', description: 'Rate a learning 1..5' },
  { method: 'POST', path: '/learn', description: 'Contribute a learning (identity required)' },
  { method: 'GET', path: '/contributor/{wallet}', description: 'Contributor earnings by wallet' },
  { method: 'GET', path: '/contributor/{wallet}/settlements', description: 'Settlements of a wallet' },
  { method: 'GET', path: '/openapi.json', description: 'OpenAPI 3.0 document' },
  { method: 'GET', path: '/.well-known/agent.json', description: 'This agent card' },
];
const PAID = [
  {
    method: 'GET',
    path: '/knowledge/{id}',
    description:
      'Unlock a learning: X-Payment (x402) or X-API-Key with credits; the price is per learning, this is the floor',
    price_usd: LIMITS.dynamicPriceUsd.floor,
  },
];

const mountedOnly = <T extends { method: string; path: string }>(list: T[], mounted: ReadonlySet<string>) =>
  list.filter((e) => mounted.has(`${e.method} ${e.path}`));

/** GET /.well-known/agent.json: the card exactly as the contract lists it. */
export function agentCard(input: CardInput): AgentCard {
  return {
    name: NAME,
    description: DESCRIPTION,
    version: VERSIONS.agentCard,
    url: input.baseUrl,
    capabilities: [...AGENT_CAPABILITIES],
    skills: SKILLS,
    authentication: {
      method: 'x402',
      description:
        'Pay per unlock with a signed USDC transfer authorization in the X-Payment header (scheme exact); no account needed, only a funded wallet. Alternatively send X-API-Key (axl_…) and spend prepaid credits.',
      network: PAYMENT_NETWORK,
      asset: 'USDC',
      asset_contract: USDC_BASE,
      facilitator: input.facilitatorUrl ?? input.baseUrl,
      protocol_spec: 'https://github.com/coinbase/x402',
    },
    endpoints: {
      base_url: input.baseUrl,
      free: mountedOnly(FREE, input.mounted),
      paid: mountedOnly(PAID, input.mounted),
    },
    protocols: ['http', 'mcp'],
    mcp: {
      description: 'MCP stdio server exposing the registry and marketplace as 17 tools.',
      package: '@axle/mcp',
      tools: [...MCP_TOOL_NAMES],
      tool_schemas: Object.fromEntries(MCP_TOOL_NAMES.map((name) => [name, mcpToolJsonSchema(name)])),
      note:
        `Start with the package command axle-mcp (no arguments); it reads SVC_API_KEY and SVC_BASE_URL (${input.baseUrl}). ` +
        `The same tools are served over MCP Streamable HTTP at ${input.baseUrl}/mcp (Authorization: Bearer axl_…). ` +
        "Extraction is not an MCP tool: it runs on the contributor's machine.",
    },
    operator: input.operator,
    created_at: input.createdAt,
    spec_version: VERSIONS.a2aSpec,
  };
}

/**
 * GET /.well-known/agent-card.json: the same agent in the A2A AgentCard shape. The 0.3 fields (protocolVersion,
 * url, preferredTransport) serve 0.3 clients; supportedInterfaces, which 1.x clients read, lists JSON-RPC and
 * HTTP+JSON at protocol 1.0 and the 0.3 JSON-RPC interface (the shape @a2a-js/sdk's own compat card has).
 */
export function a2aAgentCard(input: CardInput): A2AAgentCard {
  const jsonRpc = `${input.baseUrl}${A2A_PATH}`;
  return {
    protocolVersion: '0.3.0',
    name: NAME,
    description: DESCRIPTION,
    // A2A JSON-RPC (message/send, tasks/get) is served at /a2a; the HTTP API itself is documented at documentationUrl.
    url: `${input.baseUrl}${A2A_PATH}`,
    preferredTransport: 'JSONRPC',
    additionalInterfaces: [{ url: jsonRpc, transport: 'JSONRPC' }],
    supportedInterfaces: [
      { url: jsonRpc, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: `${input.baseUrl}${A2A_REST_PATH}`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      { url: jsonRpc, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    ],
    version: VERSIONS.agentCard,
    provider: { organization: input.operator, url: input.baseUrl },
    documentationUrl: `${input.baseUrl}/openapi.json`,
    capabilities: { streaming: false, pushNotifications: false, stateTransitionHistory: false },
    securitySchemes: {
      apiKey: {
        type: 'apiKey',
        in: 'header',
        name: 'X-API-Key',
        description: 'API key (axl_…); unlocks spend prepaid credits',
      },
      session: {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'JWT',
        description: 'Session token from magic-link sign-in',
      },
      x402: { type: 'apiKey', in: 'header', name: 'X-Payment', description: `x402 USDC payment on ${PAYMENT_NETWORK}` },
    },
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['application/json', 'text/plain'],
    skills: SKILLS.map(({ id, name, description, tags, examples }) => ({ id, name, description, tags, examples })),
  };
}
