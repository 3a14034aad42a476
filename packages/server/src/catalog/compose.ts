// Turns parsed source rows into the catalog: one Skill per row, unique ids, stable order.
// Pure, so the importer can be tested in memory and re-run to a byte-identical file.
import { CATEGORIES, type Skill, type SkillInstall, type SkillTool } from '@axle/sdk';
import { productName, restatesName, synthesizeDescription } from './describe.js';
import {
  categorizePublicApi,
  deriveTags,
  informativeDockerTags,
  looksSecret,
  MCP_DEFAULT_CATEGORY,
  placeMcpServer,
  pricingForHostedMcpServer,
  pricingForMcpServer,
  pricingForWebApi,
  qualityForMcpServer,
  qualityForWebApi,
  sectionTags,
  slugify,
} from './mapping.js';
import type { DockerServerRow } from './parse-docker-registry.js';
import { type McpServerRow, parseMcpRegistry } from './parse-mcp-registry.js';
import { type PublicApiRow, parsePublicApis } from './parse-public-apis.js';

export interface CatalogSources {
  /** Text of public-apis README.md. */
  publicApisMarkdown: string;
  /** Parsed JSON of the MCP registry seed. */
  mcpSeed: unknown;
  /** Docker's MCP catalog: the servers (parsed) and the commit of the snapshot. */
  docker?: { commit: string; servers: readonly DockerServerRow[] };
  /** The project's own examples (catalog/examples.json): requests each skill answers, by skill id. */
  examples?: Readonly<Record<string, readonly string[]>>;
}

/** A skill before its id is fixed: `slug` is preferred, `fallback` is used when the slug is shared. */
interface Draft {
  slug: string;
  fallback: string;
  sortKey: string;
  skill: Omit<Skill, 'id' | 'relevance'>;
}

function hostOf(link: string): string {
  try {
    return new URL(link).hostname.replace(/^www\./, '');
  } catch {
    return link;
  }
}

function webApiDraft(row: PublicApiRow): Draft {
  const text = `${row.name} ${row.description}`;
  const host = slugify(hostOf(row.link));
  const slug = slugify(row.name) || host;
  return {
    slug,
    fallback: `${slug}-${host}`,
    sortKey: `api ${row.name} ${row.link}`,
    skill: {
      name: row.name,
      description: row.description,
      category: categorizePublicApi(row.section, text),
      tags: deriveTags(sectionTags(row.section), text),
      type: 'api',
      connection: {
        protocol: row.https ? 'https' : 'http',
        endpoint: row.link,
        auth: row.auth,
        docs: row.link,
      },
      pricing: pricingForWebApi(row.auth),
      quality: qualityForWebApi(row.https, row.cors),
    },
  };
}

/** A container's `docker run` options besides `-e` (volumes, network) and the arguments after its image. */
export interface ContainerRun {
  options: readonly string[];
  args: readonly string[];
}
const NO_RUN: ContainerRun = { options: [], args: [] };

const LAUNCHERS: Readonly<Record<string, (name: string, env: readonly string[], run: ContainerRun) => string>> = {
  npm: (name) => `npx -y ${name}`,
  pypi: (name) => `uvx ${name}`,
  // A container sees only the variables passed with -e, and only the host paths mounted with -v.
  docker: (name, env, run) =>
    ['docker run -i --rm', ...env.map((v) => `-e ${v}`), ...run.options, name, ...run.args].join(' '),
};

/**
 * A package name as a launch command may hold it: a command is pasted into a shell, so a name holding anything else
 * (`;`, `|`, `&`, `$(`, a backtick, a redirect, a quote, a glob), or starting with `-` (an option: `npx -y --call=...`)
 * or `~` (a home directory), would run more than the package. Letters, digits and `_ . / : @ + = -` cover the
 * registries' names (`@scope/name`, `owner/repo`, `name==1.0`, `ghcr.io/owner/image:tag@sha256:...`).
 */
const SHELL_WORD = /^[A-Za-z0-9@_][\w./:@+=-]*$/;
/** An install variable's name as a shell and `docker run -e` take it (no `=`: that would set its value). */
const ENV_NAME = /^[A-Za-z_][\w.-]*$/;

/**
 * The command that starts a package of `registry` (npm, pypi, docker, or the registry API's oci), or undefined: also
 * when `name` is not a plain word (SHELL_WORD) or a variable of `env` not a variable name (ENV_NAME).
 */
export function mcpLaunchCommand(
  registry: string,
  name: string,
  env: readonly string[],
  run: ContainerRun = NO_RUN,
): string | undefined {
  const launch = LAUNCHERS[registry === 'oci' ? 'docker' : registry];
  if (!launch || !SHELL_WORD.test(name) || !env.every((v) => ENV_NAME.test(v))) return undefined;
  return launch(name, env, run);
}

/** Connection for an MCP server: a launch command when the package registry is known, else a hosted remote, else the source repository. */
export function mcpConnection(row: McpServerRow): Skill['connection'] {
  const env = row.package?.env ?? [];
  const auth = env.length > 0 ? env.join(', ') : 'none';
  const command = row.package && mcpLaunchCommand(row.package.registry, row.package.name, env);
  if (command) {
    return { protocol: 'stdio', endpoint: command, auth, docs: row.repositoryUrl, command, env };
  }
  const remote = row.remotes[0];
  if (remote) return { protocol: remote.transport, endpoint: remote.url, auth, docs: row.repositoryUrl, env };
  // The seed gives no installable package: the repository's instructions are the way to run it.
  return { protocol: 'stdio', endpoint: row.repositoryUrl, auth, docs: row.repositoryUrl, env };
}

/** Where Docker's catalog describes server `dir` at the snapshot's commit. */
const dockerPage = (commit: string, dir: string) =>
  `https://github.com/docker/mcp-registry/tree/${commit}/servers/${dir}`;

/** Connection for a server of Docker's catalog: its image, its hosted endpoint, or (tools run by Docker's gateway) its catalog page. */
export function dockerConnection(row: DockerServerRow, commit: string): Skill['connection'] {
  const env = row.install.env.map((v) => v.name);
  const auth = env.length > 0 ? env.join(', ') : 'none';
  const docs = row.repositoryUrl || dockerPage(commit, row.name);
  if (row.kind === 'server' && row.image) {
    const command = mcpLaunchCommand('docker', row.image, env, { options: row.runOptions, args: row.runArgs })!;
    return { protocol: 'stdio', endpoint: command, auth, docs, command, env };
  }
  if (row.remote) return { protocol: row.remote.transport, endpoint: row.remote.url, auth, docs, env };
  return { protocol: 'stdio', endpoint: dockerPage(commit, row.name), auth, docs, env };
}

/** An MCP server from either source (or both, merged), before it becomes a draft. */
interface McpEntry {
  name: string;
  slug: string;
  fallback: string;
  sortKey: string;
  description: string;
  /** The names the sources give the server (title, repository, owner, package): a description saying only these says nothing. */
  names: string[];
  /** Docker's title, or the repository name: the product a synthesized description names. */
  title: string;
  repo: string;
  owner: string;
  /** Docker's tags that say something: not generic, not the server's own name. */
  topics: string[];
  /** What tags are read from. */
  text: string;
  /** What the category is read from: `text` without the tags every kind of server carries. */
  categoryText: string;
  sourceTags: string[];
  connection: Skill['connection'];
  install: SkillInstall;
  tools: SkillTool[];
  hosted: boolean;
  versioned: boolean;
  hasRepository: boolean;
  /** Docker's own category (see placeMcpServer). */
  dockerCategory?: string;
}

function seedEntry(row: McpServerRow): McpEntry {
  const name = `${row.owner}/${row.repo}`;
  const registry = row.package && row.package.registry !== 'unknown' ? [row.package.registry] : [];
  const connection = mcpConnection(row);
  return {
    name,
    slug: slugify(row.repo),
    fallback: slugify(`${row.owner}-${row.repo}`),
    sortKey: `mcp ${row.registryName}`,
    description: row.description,
    names: [row.owner, row.repo, row.package?.name ?? ''],
    title: '',
    repo: row.repo,
    owner: row.owner,
    topics: [],
    text: `${row.repo.replace(/[-_]/g, ' ')} ${row.description}`,
    // The repository name glued (`ynabmcpserver`) is read as its product too (ynab).
    categoryText: `${row.repo.replace(/[-_]/g, ' ')} ${productName('', '', row.repo)} ${row.description}`,
    sourceTags: ['mcp', ...registry],
    connection,
    install: {
      env: (row.package?.variables ?? []).map((v) => ({ ...v, secret: looksSecret(v.name) })),
    },
    tools: [],
    hosted: connection.command === undefined && row.remotes.length > 0,
    versioned: (row.package?.version ?? '') !== '',
    hasRepository: row.repositoryUrl !== '',
  };
}

/** A Docker tag that is the server's own name (`wikipedia-mcp` on wikipedia-mcp, `line` on line-mcp). */
export function ownNameTag(tag: string, names: readonly string[]): boolean {
  const bare = (s: string) => slugify(s).replace(/(-mcp|-server)+$/, '');
  return names.some((n) => bare(n) === bare(tag));
}

function dockerEntry(row: DockerServerRow, commit: string): McpEntry {
  const connection = dockerConnection(row, commit);
  const topics = informativeDockerTags(row.tags).filter((t) => !ownNameTag(t, [row.name, row.title]));
  return {
    name: row.title,
    slug: slugify(row.name),
    fallback: slugify(`${row.name}-mcp`),
    sortKey: `mcp docker ${row.name}`,
    description: row.description,
    names: [row.name, row.title],
    title: row.title,
    repo: row.name,
    owner: '',
    topics,
    text: `${row.title} ${row.description} ${topics.join(' ')}`,
    categoryText: `${row.title} ${row.description} ${informativeDockerTags(row.tags).join(' ')}`,
    sourceTags: ['mcp', 'docker', ...row.tags],
    connection,
    install: row.install,
    tools: row.tools,
    hosted: row.kind === 'remote',
    // Docker's catalog pins each image to a source commit.
    versioned: row.kind === 'server',
    hasRepository: row.repositoryUrl !== '',
    ...(row.category && { dockerCategory: row.category }),
  };
}

/**
 * One server listed by both sources: field by field, the richer record wins. The seed's id and launch command
 * stay (a pinned npm/PyPI package, and ids people already use); Docker's title (the seed has only owner/repo), the
 * longer description, Docker's tools and its configuration (secrets marked) when it lists any, tags of both.
 */
function mergeEntries(seed: McpEntry, docker: McpEntry): McpEntry {
  const launchable = seed.connection.command !== undefined;
  const install = docker.install.env.length >= seed.install.env.length ? docker.install : seed.install;
  const env = install.env.map((v) => v.name);
  const connection = launchable || docker.connection.command === undefined ? seed.connection : docker.connection;
  const description = docker.description.length > seed.description.length ? docker.description : seed.description;
  return {
    ...seed,
    name: docker.name,
    description,
    names: [...seed.names, ...docker.names],
    title: docker.title,
    topics: docker.topics,
    text: `${seed.text} ${docker.text}`,
    categoryText: `${seed.categoryText} ${docker.categoryText}`,
    sourceTags: [...seed.sourceTags, ...docker.sourceTags],
    connection: { ...connection, env, auth: env.length > 0 ? env.join(', ') : 'none' },
    install,
    tools: docker.tools.length > 0 ? docker.tools : seed.tools,
    versioned: seed.versioned || docker.versioned,
    hasRepository: true,
    ...(docker.dockerCategory && { dockerCategory: docker.dockerCategory }),
  };
}

/**
 * The server's description, or, when its sources give none or only its name back, one built from its product
 * name, the category a rule placed it in, its topics and its tools (see describe.ts).
 */
export function mcpDescription(
  e: Pick<McpEntry, 'description' | 'names' | 'title' | 'repo' | 'owner' | 'topics' | 'tools'>,
  placed: Skill['category'] | undefined,
): string {
  if (!restatesName(e.description, e.names)) return e.description;
  return synthesizeDescription({
    product: productName(e.description, e.title, e.repo, e.owner),
    ...(placed && { category: placed }),
    topics: e.topics,
    tools: e.tools,
  });
}

function mcpDraft(e: McpEntry): Draft {
  const placed = placeMcpServer(e.categoryText, {
    ...(e.dockerCategory && { category: e.dockerCategory }),
    tools: e.tools,
  });
  return {
    slug: e.slug,
    fallback: e.fallback,
    sortKey: e.sortKey,
    skill: {
      name: e.name,
      description: mcpDescription(e, placed),
      category: placed ?? MCP_DEFAULT_CATEGORY,
      tags: deriveTags(e.sourceTags, e.text),
      type: 'mcp_server',
      connection: e.connection,
      pricing: e.hosted ? pricingForHostedMcpServer() : pricingForMcpServer(e.connection.env ?? []),
      quality: qualityForMcpServer({
        launchable: e.connection.command !== undefined || e.hosted,
        versioned: e.versioned,
        described: e.description !== '',
        hasRepository: e.hasRepository,
      }),
      ...(e.tools.length > 0 && { tools: e.tools }),
      ...(e.install.env.length > 0 || e.install.note ? { install: e.install } : {}),
    },
  };
}

/** github.com/Owner/Repo.git/ -> github.com/owner/repo: how the two sources are matched. */
export function repositoryKey(url: string): string {
  return url
    .trim()
    .toLowerCase()
    .replace(/^https?:\/\/(www\.)?/, '')
    .replace(/(\.git)?\/*$/, '');
}

/**
 * The seed's rows less repeats of one server: a row whose repository and (non-empty) description are another's (a
 * server listed again after its repository moved) is dropped, keeping the row whose owner/repo is the repository's path.
 */
export function distinctSeedRows(seed: readonly McpServerRow[]): McpServerRow[] {
  const server = (r: McpServerRow) => {
    const repository = repositoryKey(r.repositoryUrl);
    const description = r.description.trim().toLowerCase();
    return repository === '' || description === '' ? undefined : `${repository} ${description}`;
  };
  const home = (r: McpServerRow) => repositoryKey(r.repositoryUrl).endsWith(`/${r.owner}/${r.repo}`.toLowerCase());
  const chosen = new Map<string, McpServerRow>();
  for (const row of seed) {
    const key = server(row);
    if (key === undefined) continue;
    const prior = chosen.get(key);
    if (prior === undefined || (!home(prior) && home(row))) chosen.set(key, row);
  }
  return seed.filter((r) => {
    const key = server(r);
    return key === undefined || chosen.get(key) === r;
  });
}

/**
 * The MCP servers of both sources, one entry per server: a Docker entry whose repository is the
 * repository of exactly one seed entry (and of no other Docker entry: monorepos hold many servers)
 * merges into it; the rest stand alone.
 */
function mcpEntries(seed: readonly McpServerRow[], docker: readonly DockerServerRow[], commit: string): McpEntry[] {
  const countBy = (keys: string[]) => {
    const m = new Map<string, number>();
    for (const k of keys) if (k !== '') m.set(k, (m.get(k) ?? 0) + 1);
    return m;
  };
  const seedKeys = seed.map((r) => repositoryKey(r.repositoryUrl));
  const seedCounts = countBy(seedKeys);
  const dockerCounts = countBy(docker.map((r) => repositoryKey(r.repositoryUrl)));
  const entries = seed.map(seedEntry);
  const indexByKey = new Map(seedKeys.map((k, i) => [k, i]));
  for (const row of docker) {
    const key = repositoryKey(row.repositoryUrl);
    const i = seedCounts.get(key) === 1 && dockerCounts.get(key) === 1 ? indexByKey.get(key) : undefined;
    const entry = dockerEntry(row, commit);
    if (i === undefined) entries.push(entry);
    else entries[i] = mergeEntries(entries[i]!, entry);
  }
  return entries;
}

/** Slugs that say nothing about the server; always qualified with the owner. */
const GENERIC_SLUGS = new Set(['mcp', 'mcp-server', 'server', 'api']);

/**
 * Ids: the name's slug when no other entry shares it; otherwise every sharer takes its fallback
 * (name + host, or owner + repo), so no entry wins a slug by list position. Anything still equal
 * gets -2, -3... in sort-key order.
 */
function assignIds(drafts: Draft[], reserved: ReadonlySet<string> = new Set()): Skill[] {
  const counts = new Map<string, number>();
  for (const d of drafts) counts.set(d.slug, (counts.get(d.slug) ?? 0) + 1);
  const ordered = [...drafts].sort((a, b) => (a.sortKey < b.sortKey ? -1 : a.sortKey > b.sortKey ? 1 : 0));
  const taken = new Set<string>(reserved);
  const skills: Skill[] = [];
  for (const d of ordered) {
    const base = counts.get(d.slug) === 1 && !GENERIC_SLUGS.has(d.slug) && !reserved.has(d.slug) ? d.slug : d.fallback;
    let id = base;
    for (let n = 2; taken.has(id); n += 1) id = `${base}-${n}`;
    taken.add(id);
    skills.push({ id, ...d.skill });
  }
  return skills.sort((a, b) => (a.id < b.id ? -1 : 1));
}

/**
 * Ids of the public-apis and seed entries are fixed first, as they were before Docker's catalog
 * joined: a Docker-only server takes its name's slug when free, else `<name>-mcp`, so adding it
 * never renames an entry people already link to.
 */
export function buildCatalog(sources: CatalogSources): Skill[] {
  const apis = parsePublicApis(sources.publicApisMarkdown).map(webApiDraft);
  const seed = distinctSeedRows(parseMcpRegistry(sources.mcpSeed).servers);
  const entries = mcpEntries(seed, sources.docker?.servers ?? [], sources.docker?.commit ?? '');
  const drafts = entries.map(mcpDraft);
  const first = assignIds([...apis, ...drafts.slice(0, seed.length)]);
  const rest = assignIds(drafts.slice(seed.length), new Set(first.map((s) => s.id)));
  const skills = [...first, ...rest].sort((a, b) => (a.id < b.id ? -1 : 1));
  return sources.examples ? withExamples(skills, sources.examples) : skills;
}

/** Each skill with its examples; an example keyed by an id the catalog lacks is an error (a renamed or dropped skill). */
export function withExamples(skills: readonly Skill[], examples: Readonly<Record<string, readonly string[]>>): Skill[] {
  const ids = new Set(skills.map((s) => s.id));
  const unknown = Object.keys(examples).filter((id) => !ids.has(id));
  if (unknown.length > 0) throw new Error(`examples for skills the catalog lacks: ${unknown.slice(0, 10).join(', ')}`);
  return skills.map((s) => {
    const own = [...new Set((examples[s.id] ?? []).map((e) => e.trim()).filter((e) => e.length > 0))];
    return own.length > 0 ? { ...s, examples: own } : s;
  });
}

/** Two-space JSON with a final newline: stable diffs, byte-identical re-runs. */
export function serializeCatalog(skills: readonly Skill[]): string {
  return `${JSON.stringify(skills, null, 2)}\n`;
}

export function categoryCounts(skills: readonly Pick<Skill, 'category'>[]): Record<Skill['category'], number> {
  const counts = Object.fromEntries(CATEGORIES.map((c) => [c, 0])) as Record<Skill['category'], number>;
  for (const s of skills) counts[s.category] += 1;
  return counts;
}
