import { z } from '../zod.js';

export const AGENT_CAPABILITIES = [
  'skill-discovery',
  'knowledge-marketplace',
  'agent-to-agent-payments',
  'revenue-sharing',
] as const;
export const AGENT_SKILL_IDS = [
  'discover',
  'knowledge-search',
  'knowledge-contribute',
  'knowledge-unlock',
  'rate-learning',
  'contributor-dashboard',
  'autonomous-extraction',
] as const;

export const AgentSkill = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    tags: z.array(z.string()),
    examples: z.array(z.string()),
  })
  .openapi('AgentSkill');

const EndpointEntry = z.object({ path: z.string(), method: z.string(), description: z.string() });

/** GET /.well-known/agent.json, exactly the fields of the contract (capabilities are strings here). */
export const AgentCard = z
  .object({
    name: z.string(),
    description: z.string(),
    version: z.string(),
    url: z.string().url(),
    capabilities: z.array(z.enum(AGENT_CAPABILITIES)),
    skills: z.array(AgentSkill.extend({ id: z.enum(AGENT_SKILL_IDS) })),
    authentication: z.object({
      method: z.string(),
      description: z.string(),
      network: z.string(),
      asset: z.string(),
      asset_contract: z.string(),
      facilitator: z
        .string()
        .url()
        .describe("x402 facilitator URL; this server's own base URL when it verifies and settles payments itself"),
      protocol_spec: z.string().url(),
    }),
    endpoints: z.object({
      base_url: z.string().url(),
      free: z.array(EndpointEntry),
      paid: z.array(EndpointEntry.extend({ price_usd: z.number().min(0) })),
    }),
    protocols: z.array(z.enum(['http', 'mcp'])),
    mcp: z.object({
      description: z.string(),
      package: z.string(),
      tools: z.array(z.string()),
      tool_schemas: z
        .record(z.string(), z.record(z.string(), z.unknown()))
        .describe('tool name -> JSON Schema of its input'),
      note: z.string(),
    }),
    operator: z.string(),
    created_at: z.string().datetime({ offset: true }).describe('when this server build (and so this card) was made'),
    spec_version: z.string(),
  })
  .openapi('AgentCard');
export type AgentCard = z.infer<typeof AgentCard>;

/**
 * GET /.well-known/agent-card.json: the same agent in the A2A AgentCard shape: the 0.3 fields (protocolVersion,
 * url, preferredTransport) that 0.3 clients read, plus A2A 1.0's supportedInterfaces, which 1.x clients read.
 */
export const A2AAgentCard = z
  .object({
    protocolVersion: z.string(),
    name: z.string(),
    description: z.string(),
    url: z.string().url(),
    preferredTransport: z.string(),
    additionalInterfaces: z.array(z.object({ url: z.string().url(), transport: z.string() })).optional(),
    supportedInterfaces: z
      .array(z.object({ url: z.string().url(), protocolBinding: z.string(), protocolVersion: z.string() }))
      .describe('A2A 1.0: every interface with its binding (JSONRPC, HTTP+JSON) and protocol version (1.0, 0.3)'),
    version: z.string(),
    provider: z.object({ organization: z.string(), url: z.string().url() }),
    documentationUrl: z.string().url().optional(),
    capabilities: z.object({
      streaming: z.boolean(),
      pushNotifications: z.boolean(),
      stateTransitionHistory: z.boolean().optional(),
    }),
    securitySchemes: z.record(z.string(), z.record(z.string(), z.unknown())),
    security: z.array(z.record(z.string(), z.array(z.string()))).optional(),
    defaultInputModes: z.array(z.string()),
    defaultOutputModes: z.array(z.string()),
    skills: z.array(AgentSkill),
  })
  .openapi('A2AAgentCard');
export type A2AAgentCard = z.infer<typeof A2AAgentCard>;
