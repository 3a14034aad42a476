// The official MCP Registry's v0.1 API (github.com/modelcontextprotocol/registry, docs/reference/api/openapi.yaml):
// the response shapes a sync reads, and the mapping of one server version to a Skill. Pure: no I/O.
import { type Skill, z } from '@axle/sdk';
import { mcpDescription, mcpLaunchCommand, repositoryKey } from './compose.js';
import {
  deriveTags,
  MCP_DEFAULT_CATEGORY,
  pricingForHostedMcpServer,
  placeMcpServer,
  pricingForMcpServer,
  qualityForMcpServer,
  slugify,
} from './mapping.js';

const KeyValueInput = z.object({
  name: z.string(),
  description: z.string().optional(),
  isSecret: z.boolean().optional(),
  isRequired: z.boolean().optional(),
  placeholder: z.string().optional(),
});
const Package = z.object({
  registryType: z.string(),
  identifier: z.string(),
  version: z.string().optional(),
  environmentVariables: z.array(KeyValueInput).optional(),
});
const Remote = z.object({ type: z.string(), url: z.string() });
export const ServerDetail = z.object({
  name: z.string().min(3).max(200),
  description: z.string(),
  title: z.string().optional(),
  version: z.string().min(1).max(255),
  repository: z.object({ url: z.string() }).optional(),
  websiteUrl: z.string().optional(),
  packages: z.array(Package).optional(),
  remotes: z.array(Remote).optional(),
});
export type ServerDetail = z.infer<typeof ServerDetail>;

export const OFFICIAL_META = 'io.modelcontextprotocol.registry/official';
const Official = z.object({
  status: z.enum(['active', 'deprecated', 'deleted']).optional(),
  statusMessage: z.string().optional(),
  updatedAt: z.string(),
  isLatest: z.boolean(),
});
export const ServerResponse = z.object({
  server: ServerDetail,
  _meta: z.object({ [OFFICIAL_META]: Official }),
});
export type ServerResponse = z.infer<typeof ServerResponse>;
export const ServerList = z.object({
  servers: z.array(ServerResponse),
  metadata: z.object({ nextCursor: z.string().nullish(), count: z.number().optional() }).optional(),
});

/** One server version as stored after a sync. */
export interface SyncedServer {
  name: string;
  version: string;
  isLatest: boolean;
  status: 'active' | 'deprecated' | 'deleted';
  statusMessage?: string;
  updatedAt: string;
  detail: ServerDetail;
}

export function syncedServer(r: ServerResponse): SyncedServer {
  const o = r._meta[OFFICIAL_META];
  return {
    name: r.server.name,
    version: r.server.version,
    isLatest: o.isLatest,
    status: o.status ?? 'active',
    ...(o.statusMessage && { statusMessage: o.statusMessage }),
    updatedAt: o.updatedAt,
    detail: r.server,
  };
}

/** `io.github.owner/repo` -> `owner-repo`; `com.example/weather` -> `com-example-weather`. */
export const registrySkillId = (name: string): string => slugify(name.replace(/^io\.github\./, '').replace('/', '-'));

/** The skill of a server's latest version. */
export function registrySkill(s: SyncedServer): Omit<Skill, 'relevance'> {
  const d = s.detail;
  const pkg = d.packages?.find((p) => mcpLaunchCommand(p.registryType, p.identifier, []) !== undefined);
  const variables = pkg?.environmentVariables ?? [];
  const env = [...new Set(variables.map((v) => v.name.trim()).filter((n) => n !== ''))];
  const auth = env.length > 0 ? env.join(', ') : 'none';
  const repository = d.repository?.url ?? '';
  const docs = d.websiteUrl || repository;
  const remote = d.remotes?.[0];
  const command = pkg && mcpLaunchCommand(pkg.registryType, pkg.identifier, env);
  const connection: Skill['connection'] = command
    ? { protocol: 'stdio', endpoint: command, auth, docs, command, env }
    : remote
      ? { protocol: remote.type, endpoint: remote.url, auth, docs, env }
      : { protocol: 'stdio', endpoint: repository || docs, auth, docs, env };
  const given = d.description.replace(/\s+/g, ' ').trim();
  const [namespace = '', repo = ''] = d.name.split('/');
  const text = `${d.title ?? ''} ${repo} ${given}`.replace(/[-_]/g, ' ');
  const placed = placeMcpServer(text);
  // A registry entry whose description is empty or says only its name gets one built as the bundled catalog's are.
  const description = mcpDescription(
    {
      description: given,
      names: [d.title ?? '', repo, namespace.replace(/^io\.github\./, '')],
      title: d.title ?? '',
      repo,
      owner: namespace.replace(/^io\.github\./, ''),
      topics: [],
      tools: [],
    },
    placed,
  );
  const hosted = !command && remote !== undefined;
  return {
    id: registrySkillId(d.name),
    name: d.title?.trim() || d.name,
    description,
    category: placed ?? MCP_DEFAULT_CATEGORY,
    tags: deriveTags(['mcp', 'registry', ...(pkg ? [pkg.registryType] : [])], text),
    type: 'mcp_server',
    connection,
    pricing: hosted ? pricingForHostedMcpServer() : pricingForMcpServer(env),
    quality: qualityForMcpServer({
      launchable: command !== undefined || hosted,
      versioned: true,
      described: given !== '',
      hasRepository: repository !== '',
    }),
    ...(variables.length > 0 && {
      install: {
        env: variables
          .filter((v, i) => v.name.trim() !== '' && variables.findIndex((w) => w.name === v.name) === i)
          .map((v) => ({
            name: v.name.trim(),
            secret: v.isSecret === true,
            ...(v.description && { description: v.description }),
            ...(v.placeholder && { example: v.placeholder }),
          })),
      },
    }),
    ...(s.status === 'deprecated' && { deprecated: true }),
  };
}

/** The repository a skill points at, for matching synced servers with catalog entries. */
export const skillRepositoryKey = (skill: Pick<Skill, 'connection'>): string =>
  /^https?:\/\//.test(skill.connection.docs) ? repositoryKey(skill.connection.docs) : '';

/**
 * Skills for the synced servers that the catalog file does not already hold: the file (bundled or the
 * operator's AXLE_CATALOG) is authoritative, so a server whose id or repository matches a file entry is
 * left out. Ids shared by synced servers take -2, -3... in name order.
 */
export function syncedSkills(
  file: readonly Pick<Skill, 'id' | 'connection'>[],
  servers: readonly SyncedServer[],
): Omit<Skill, 'relevance'>[] {
  const taken = new Set(file.map((s) => s.id));
  const repositories = new Set(file.map(skillRepositoryKey).filter((k) => k !== ''));
  const out: Omit<Skill, 'relevance'>[] = [];
  for (const s of [...servers].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const skill = registrySkill(s);
    const repository = s.detail.repository?.url ? repositoryKey(s.detail.repository.url) : '';
    if (taken.has(skill.id) && file.some((f) => f.id === skill.id)) continue;
    if (repository !== '' && repositories.has(repository)) continue;
    let id = skill.id;
    for (let n = 2; taken.has(id); n += 1) id = `${skill.id}-${n}`;
    taken.add(id);
    out.push({ ...skill, id });
  }
  return out;
}
