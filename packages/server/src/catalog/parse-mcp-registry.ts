// Reads the MCP registry seed (an array of server records). Pure: takes the parsed JSON.
import { z } from '@axle/sdk';

const EnvVar = z.object({ name: z.string(), description: z.string().optional() });
const Package = z.object({
  registry_name: z.string(),
  name: z.string(),
  version: z.string().optional(),
  environment_variables: z.array(EnvVar).optional(),
});
const Remote = z.object({ transport_type: z.string(), url: z.string() });
const ServerRecord = z.object({
  name: z.string(),
  description: z.string(),
  repository: z.object({ url: z.string() }),
  packages: z.array(Package).optional(),
  remotes: z.array(Remote).optional(),
});
const Seed = z.array(ServerRecord);

/** An environment variable as the seed describes it. */
export interface SeedVariable {
  name: string;
  description?: string;
}

export interface McpServerRow {
  /** Registry name, e.g. `io.github.owner/repo`. */
  registryName: string;
  owner: string;
  repo: string;
  description: string;
  repositoryUrl: string;
  /** The first package the seed lists (no seed entry has more than one). */
  package?: { registry: string; name: string; version: string; env: string[]; variables: SeedVariable[] };
  /** Remotes that are hosted somewhere (not a localhost example) and name their transport. */
  remotes: { transport: string; url: string }[];
}

const LOCAL = /^https?:\/\/(localhost|127\.0\.0\.1|0\.0\.0\.0)([:/]|$)/i;

/** Returns the usable records and how many placeholder records (empty name) were skipped. */
export function parseMcpRegistry(json: unknown): { servers: McpServerRow[]; skipped: number } {
  const parsed = Seed.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`MCP registry seed: ${issue.path.join('.')}: ${issue.message}`);
  }
  const servers: McpServerRow[] = [];
  let skipped = 0;
  for (const record of parsed.data) {
    const name = record.name.trim();
    if (name === '') {
      skipped += 1;
      continue;
    }
    const [namespace = '', ...rest] = name.split('/');
    const pkg = record.packages?.[0];
    const variables = new Map<string, SeedVariable>();
    for (const e of pkg?.environment_variables ?? []) {
      const varName = e.name.trim();
      const description = (e.description ?? '').replace(/\s+/g, ' ').trim();
      if (varName !== '' && !variables.has(varName))
        variables.set(varName, { name: varName, ...(description && { description }) });
    }
    servers.push({
      registryName: name,
      owner: namespace.replace(/^io\.github\./, ''),
      repo: rest.join('/') || namespace,
      description: record.description.replace(/\s+/g, ' ').trim(),
      repositoryUrl: record.repository.url.trim(),
      package: pkg && {
        registry: pkg.registry_name,
        name: pkg.name.trim(),
        version: (pkg.version ?? '').trim(),
        env: [...variables.keys()],
        variables: [...variables.values()],
      },
      remotes: (record.remotes ?? [])
        .map((r) => ({ transport: r.transport_type.trim(), url: r.url.trim() }))
        .filter((r) => r.transport !== '' && r.url !== '' && !LOCAL.test(r.url)),
    });
  }
  return { servers, skipped };
}
