// Turns parsed source rows into the catalog: one Skill per row, unique ids, stable order.
// Pure, so the importer can be tested in memory and re-run to a byte-identical file.
import { CATEGORIES, type Skill } from '@axle/sdk';
import {
  categorizeMcpServer,
  categorizePublicApi,
  deriveTags,
  pricingForMcpServer,
  pricingForWebApi,
  qualityForMcpServer,
  qualityForWebApi,
  sectionTags,
  slugify,
} from './mapping.js';
import { type McpServerRow, parseMcpRegistry } from './parse-mcp-registry.js';
import { type PublicApiRow, parsePublicApis } from './parse-public-apis.js';

export interface CatalogSources {
  /** Text of public-apis README.md. */
  publicApisMarkdown: string;
  /** Parsed JSON of the MCP registry seed. */
  mcpSeed: unknown;
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

const LAUNCHERS: Readonly<Record<string, (name: string, env: readonly string[]) => string>> = {
  npm: (name) => `npx -y ${name}`,
  pypi: (name) => `uvx ${name}`,
  // A container sees only the variables passed with -e.
  docker: (name, env) => ['docker run -i --rm', ...env.map((v) => `-e ${v}`), name].join(' '),
};

/** Connection for an MCP server: a launch command when the package registry is known, else a hosted remote, else the source repository. */
export function mcpConnection(row: McpServerRow): Skill['connection'] {
  const env = row.package?.env ?? [];
  const auth = env.length > 0 ? env.join(', ') : 'none';
  const launch = row.package && LAUNCHERS[row.package.registry];
  if (row.package && launch) {
    const command = launch(row.package.name, env);
    return { protocol: 'stdio', endpoint: command, auth, docs: row.repositoryUrl, command, env };
  }
  const remote = row.remotes[0];
  if (remote) return { protocol: remote.transport, endpoint: remote.url, auth, docs: row.repositoryUrl, env };
  // The seed gives no installable package: the repository's instructions are the way to run it.
  return { protocol: 'stdio', endpoint: row.repositoryUrl, auth, docs: row.repositoryUrl, env };
}

function mcpDraft(row: McpServerRow): Draft {
  const name = `${row.owner}/${row.repo}`;
  const description =
    row.description || `MCP server ${name} (the registry seed has no description; see the repository).`;
  const text = `${row.repo.replace(/[-_]/g, ' ')} ${row.description}`;
  const connection = mcpConnection(row);
  const registry = row.package && row.package.registry !== 'unknown' ? [row.package.registry] : [];
  return {
    slug: slugify(row.repo),
    fallback: slugify(`${row.owner}-${row.repo}`),
    sortKey: `mcp ${row.registryName}`,
    skill: {
      name,
      description,
      category: categorizeMcpServer(text),
      tags: deriveTags(['mcp', ...registry], text),
      type: 'mcp_server',
      connection,
      pricing: pricingForMcpServer(connection.env ?? []),
      quality: qualityForMcpServer({
        launchable: connection.command !== undefined,
        versioned: (row.package?.version ?? '') !== '',
        described: row.description !== '',
        hasRepository: row.repositoryUrl !== '',
      }),
    },
  };
}

/** Slugs that say nothing about the server; always qualified with the owner. */
const GENERIC_SLUGS = new Set(['mcp', 'mcp-server', 'server', 'api']);

/**
 * Ids: the name's slug when no other entry shares it; otherwise every sharer takes its fallback
 * (name + host, or owner + repo), so no entry wins a slug by list position. Anything still equal
 * gets -2, -3... in sort-key order.
 */
function assignIds(drafts: Draft[]): Skill[] {
  const counts = new Map<string, number>();
  for (const d of drafts) counts.set(d.slug, (counts.get(d.slug) ?? 0) + 1);
  const ordered = [...drafts].sort((a, b) => (a.sortKey < b.sortKey ? -1 : a.sortKey > b.sortKey ? 1 : 0));
  const taken = new Set<string>();
  const skills: Skill[] = [];
  for (const d of ordered) {
    const base = counts.get(d.slug) === 1 && !GENERIC_SLUGS.has(d.slug) ? d.slug : d.fallback;
    let id = base;
    for (let n = 2; taken.has(id); n += 1) id = `${base}-${n}`;
    taken.add(id);
    skills.push({ id, ...d.skill });
  }
  return skills.sort((a, b) => (a.id < b.id ? -1 : 1));
}

export function buildCatalog(sources: CatalogSources): Skill[] {
  const apis = parsePublicApis(sources.publicApisMarkdown).map(webApiDraft);
  const servers = parseMcpRegistry(sources.mcpSeed).servers.map(mcpDraft);
  return assignIds([...apis, ...servers]);
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
