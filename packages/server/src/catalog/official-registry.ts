// The official MCP Registry's v0.1 API (github.com/modelcontextprotocol/registry, docs/reference/api/openapi.yaml):
// the response shapes a sync reads, and the mapping of one server version to a Skill. Pure: no I/O.
import { type Skill, z } from '@axle/sdk';
import { mcpDescription, mcpLaunchCommand, repositoryKey } from './compose.js';
import { cut } from './cut.js';
import {
  deriveTags,
  MCP_DEFAULT_CATEGORY,
  pricingForHostedMcpServer,
  placeMcpServer,
  pricingForMcpServer,
  qualityForMcpServer,
  slugify,
} from './mapping.js';

/**
 * Bounds on what a synced server carries into the index and every answer that shows it. Free text is cut to
 * its bound (it stays readable, and a registry with longer limits than the official one still works); an
 * identifier or URL beyond its bound, or one with spaces or control characters, makes the entry malformed
 * (a cut URL or name would be a wrong one). Lists of alternatives are read to their bound; an entry that
 * declares more install variables for one package than its bound is malformed (every one is needed to run it).
 */
export const REGISTRY_BOUNDS = {
  title: 200,
  description: 1000,
  statusMessage: 1000,
  variableDescription: 500,
  placeholder: 200,
  variableName: 128,
  identifier: 1000,
  type: 64,
  url: 2048,
  packages: 20,
  remotes: 20,
  variables: 100,
} as const;

/** C0 and C1 control characters other than tab and line breaks (PostgreSQL refuses NUL in text). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what it removes
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/g;
/** Free text: control characters removed, cut to `n`. */
const text = (n: number) => z.string().transform((s) => cut(s.replace(CONTROL, ''), n));
/**
 * An identifier: at most `n` characters, no spaces, control or format characters (a right-to-left override or a
 * zero-width space would make a launch command, URL or name read other than it runs), no lone surrogates.
 */
const token = (n: number) =>
  z
    .string()
    .max(n)
    .regex(/^[^\s\p{Cc}\p{Cf}\p{Cs}]*$/u);
const httpUrl = token(REGISTRY_BOUNDS.url).regex(/^https?:\/\//i);
/** The first `n` items of a list, each then parsed by `item`. */
const first = <T extends z.ZodType>(n: number, item: T) =>
  z
    .array(z.unknown())
    .transform((a) => a.slice(0, n))
    .pipe(z.array(item));

const KeyValueInput = z.object({
  name: token(REGISTRY_BOUNDS.variableName),
  description: text(REGISTRY_BOUNDS.variableDescription).optional(),
  isSecret: z.boolean().optional(),
  isRequired: z.boolean().optional(),
  placeholder: text(REGISTRY_BOUNDS.placeholder).optional(),
});
const Package = z.object({
  registryType: token(REGISTRY_BOUNDS.type),
  identifier: token(REGISTRY_BOUNDS.identifier),
  version: token(REGISTRY_BOUNDS.identifier).optional(),
  environmentVariables: z.array(KeyValueInput).max(REGISTRY_BOUNDS.variables).optional(),
});
// A remote URL may start with a {variable} the client fills in, as the registry allows.
const Remote = z.object({
  type: token(REGISTRY_BOUNDS.type),
  url: token(REGISTRY_BOUNDS.url).regex(/^(?:https?:\/\/|\{)/i),
});
export const ServerDetail = z.object({
  name: token(200).min(3),
  description: text(REGISTRY_BOUNDS.description),
  title: text(REGISTRY_BOUNDS.title).optional(),
  version: token(255).min(1),
  repository: z.object({ url: httpUrl }).optional(),
  websiteUrl: httpUrl.optional(),
  packages: first(REGISTRY_BOUNDS.packages, Package).optional(),
  remotes: first(REGISTRY_BOUNDS.remotes, Remote).optional(),
});
export type ServerDetail = z.infer<typeof ServerDetail>;

export const OFFICIAL_META = 'io.modelcontextprotocol.registry/official';
const Official = z.object({
  status: z.enum(['active', 'deprecated', 'deleted']).optional(),
  statusMessage: text(REGISTRY_BOUNDS.statusMessage).optional(),
  // An RFC 3339 date-time, as the API's schema says: Date.parse takes far more (years beyond ±9999 among them, whose
  // updated_since minus the margin is no date, which stopped every later sync).
  updatedAt: z
    .string()
    .max(64)
    .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i, 'not an RFC 3339 date-time')
    .refine((s) => !Number.isNaN(Date.parse(s)), 'not a date'),
  isLatest: z.boolean(),
});
export const ServerResponse = z.object({
  server: ServerDetail,
  _meta: z.object({ [OFFICIAL_META]: Official }),
});
export type ServerResponse = z.infer<typeof ServerResponse>;
/** A page of the list: its entries are parsed one by one (`parseEntry`), so one malformed entry is skipped alone. */
export const ServerListPage = z.object({
  servers: z.array(z.unknown()),
  metadata: z.object({ nextCursor: z.string().nullish(), count: z.number().optional() }).optional(),
});

/** One registry entry: the server version, or why it was skipped and its name when it has one. */
export type ParsedEntry = { ok: true; server: SyncedServer } | { ok: false; name?: string; reason: string };

export function parseEntry(entry: unknown): ParsedEntry {
  const parsed = ServerResponse.safeParse(entry);
  if (parsed.success) return { ok: true, server: syncedServer(parsed.data) };
  const issue = parsed.error.issues[0];
  const name = (entry as { server?: { name?: unknown } } | null)?.server?.name;
  return {
    ok: false,
    ...(typeof name === 'string' && { name: cut(name, 200) }),
    reason: `${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`,
  };
}

/** An identifier's words: `ignore-all_previous.instructions` as the screen's patterns read text. */
const identifierWords = (s: string) => s.replace(/[-_./:@+=]+/g, ' ').trim();

/**
 * The texts of a server version that agents read: what the catalog screen checks. Its identifiers (name, URLs,
 * package and variable names) are shown as they are, so they are read as they are and as words.
 */
export function agentFacingTexts(d: ServerDetail): string[] {
  const variables = (d.packages ?? []).flatMap((p) => p.environmentVariables ?? []);
  const identifiers = [
    d.name,
    d.repository?.url ?? '',
    d.websiteUrl ?? '',
    ...(d.remotes ?? []).map((r) => r.url),
    ...(d.packages ?? []).map((p) => p.identifier),
    ...variables.map((v) => v.name),
  ];
  return [
    ...identifiers.flatMap((i) => [i, identifierWords(i)]),
    d.title ?? '',
    d.description,
    ...variables.flatMap((v) => [v.description ?? '', v.placeholder ?? '']),
  ];
}

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
  // The first package that launches: its name and its variables' names are plain (no shell command beside them).
  const names = (p: (typeof d.packages & {})[number]) => [
    ...new Set((p.environmentVariables ?? []).map((v) => v.name.trim()).filter((n) => n !== '')),
  ];
  const pkg = d.packages?.find((p) => mcpLaunchCommand(p.registryType, p.identifier, names(p)) !== undefined);
  const variables = pkg?.environmentVariables ?? [];
  const env = pkg ? names(pkg) : [];
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
