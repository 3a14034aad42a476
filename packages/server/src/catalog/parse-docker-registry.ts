// Reads Docker's MCP catalog (github.com/docker/mcp-registry: servers/<dir>/server.yaml and, for some,
// tools.json). Pure: takes the parsed YAML and JSON of each server directory.
import { type SkillInstall, type SkillTool, z } from '@axle/sdk';
import { cut } from './cut.js';
import { type RunVariable, renderRunTemplates } from './docker-run.js';

const Secret = z.object({
  name: z.string(),
  env: z.string(),
  example: z.unknown().nullish(),
  description: z.string().nullish(),
});
const Env = z.object({ name: z.string(), example: z.unknown().nullish(), value: z.unknown().nullish() });
const Tool = z.object({ name: z.string(), description: z.string().nullish() });
const ServerYaml = z.object({
  name: z.string(),
  image: z.string().nullish(),
  type: z.string(),
  meta: z.object({ category: z.string().nullish(), tags: z.array(z.string()).nullish() }).nullish(),
  about: z.object({ title: z.string().nullish(), description: z.string().nullish() }),
  source: z.object({ project: z.string().nullish(), upstream: z.string().nullish() }).nullish(),
  remote: z.object({ transport_type: z.string(), url: z.string() }).nullish(),
  run: z
    .object({
      command: z.array(z.string()).nullish(),
      volumes: z.array(z.string()).nullish(),
      disableNetwork: z.boolean().nullish(),
    })
    .nullish(),
  config: z
    .object({
      description: z.string().nullish(),
      secrets: z.array(Secret).nullish(),
      env: z.array(Env).nullish(),
      parameters: z.object({ properties: z.record(z.string(), z.unknown()).nullish() }).nullish(),
    })
    .nullish(),
  oauth: z.array(z.object({ provider: z.string(), env: z.string().nullish() })).nullish(),
  tools: z.array(Tool).nullish(),
});

export interface DockerServerRow {
  /** Directory / server name in Docker's catalog, e.g. `brave`. */
  name: string;
  title: string;
  description: string;
  /** Docker's own category and tags (free text, not our taxonomy). */
  category: string;
  tags: string[];
  /** `server` (a container image), `remote` (hosted) or `poci` (tools run in containers by Docker's gateway). */
  kind: string;
  image?: string;
  remote?: { transport: string; url: string };
  /** `docker run` options and arguments besides `-e` (volumes, no network), and the arguments after the image. */
  runOptions: string[];
  runArgs: string[];
  /** Source repository, normalised by the caller when matching. */
  repositoryUrl: string;
  install: SkillInstall;
  tools: SkillTool[];
}

/** Tool descriptions are cut here: the first part says what a tool does; the rest is usually argument detail. */
const MAX_TOOL_DESCRIPTION = 300;
const clean = (s: string | null | undefined): string => (s ?? '').replace(/\s+/g, ' ').trim();
/** Placeholder texts some entries carry instead of a configuration description. */
const PLACEHOLDER = /\bTODO\b/;

function exampleOf(v: unknown): string | undefined {
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return clean(String(v)) || undefined;
  return undefined;
}

/** A setting of the server's `config.parameters`: what it holds (its description, else its title) and its default. */
function settingOf(p: unknown): { says?: string; example?: string } {
  if (p === null || typeof p !== 'object') return {};
  const { description, title, default: fallback } = p as { description?: unknown; title?: unknown; default?: unknown };
  const says = clean(typeof description === 'string' ? description : typeof title === 'string' ? title : '');
  const example = Array.isArray(fallback) ? exampleOf(fallback[0]) : exampleOf(fallback);
  return { ...(says && { says }), ...(example && { example }) };
}

/** `{{server.param}}` -> the parameter's description, which says what the variable holds. */
function parameterDescription(value: unknown, properties: Record<string, unknown>): string | undefined {
  const m = typeof value === 'string' ? /^\{\{[\w-]+\.([\w-]+)\}\}$/.exec(value.trim()) : null;
  return m ? settingOf(properties[m[1]!]).says : undefined;
}

/** The note on the settings a `docker run` line reads ("set the shell variable FILESYSTEM_PATHS (paths: ...)"). */
function runSettingsNote(variables: readonly RunVariable[], properties: Record<string, unknown>): string {
  const parts = variables.map(({ variable, setting }) => {
    const { says, example } = settingOf(properties[setting]);
    const detail = [says, example && `e.g. ${example}`].filter(Boolean).join(', ');
    return `${variable} (${setting}${detail && `: ${detail}`})`;
  });
  return parts.length === 0
    ? ''
    : `Before running, set the shell variable${parts.length > 1 ? 's' : ''} ${parts.join(', ')}.`;
}

/** The `docker run` options and arguments Docker's gateway adds from `run`, as shell words, and their settings' note. */
function runOf(y: z.infer<typeof ServerYaml>): { options: string[]; args: string[]; note: string } {
  const volumes = renderRunTemplates(y.run?.volumes ?? []);
  const args = renderRunTemplates(y.run?.command ?? []);
  const options = [...volumes.words.flatMap((v) => ['-v', v]), ...(y.run?.disableNetwork ? ['--network', 'none'] : [])];
  const seen = new Set<string>();
  const variables = [...volumes.variables, ...args.variables].filter(
    (v) => !seen.has(v.variable) && seen.add(v.variable),
  );
  return { options, args: args.words, note: runSettingsNote(variables, y.config?.parameters?.properties ?? {}) };
}

/** Secrets first, then OAuth tokens, then plain variables; one entry per name (a secret stays a secret). */
function installOf(y: z.infer<typeof ServerYaml>, runNote: string): SkillInstall {
  const env = new Map<string, SkillInstall['env'][number]>();
  const add = (v: SkillInstall['env'][number]) => {
    if (v.name !== '' && !env.has(v.name)) env.set(v.name, v);
  };
  for (const s of y.config?.secrets ?? []) {
    add({
      name: s.env.trim(),
      secret: true,
      ...(clean(s.description) && { description: clean(s.description) }),
      ...(exampleOf(s.example) && { example: exampleOf(s.example) }),
    });
  }
  for (const o of y.oauth ?? []) {
    if (o.env) add({ name: o.env.trim(), secret: true, description: `OAuth token from ${o.provider}` });
  }
  const properties = y.config?.parameters?.properties ?? {};
  for (const e of y.config?.env ?? []) {
    const description = parameterDescription(e.value, properties);
    add({
      name: e.name.trim(),
      secret: false,
      ...(description && { description }),
      ...(exampleOf(e.example) && { example: exampleOf(e.example) }),
    });
  }
  const described = clean(y.config?.description);
  const said = described && !PLACEHOLDER.test(described) ? described : '';
  // A sentence follows the description: it ends as one.
  const note = runNote === '' ? said : [said.replace(/(?<=[^.!?])$/, '.'), runNote].filter(Boolean).join(' ');
  return { env: [...env.values()], ...(note && { note }) };
}

function toolsOf(list: readonly z.infer<typeof Tool>[]): SkillTool[] {
  const seen = new Set<string>();
  const tools: SkillTool[] = [];
  for (const t of list) {
    const name = clean(t.name);
    if (name === '' || seen.has(name)) continue;
    seen.add(name);
    tools.push({ name, description: cut(clean(t.description), MAX_TOOL_DESCRIPTION) });
  }
  return tools;
}

/**
 * One server directory: its server.yaml (parsed) and tools.json (parsed, or undefined when absent).
 * Throws naming the directory when server.yaml does not have the catalog's shape.
 */
export function parseDockerServer(dir: string, serverYaml: unknown, toolsJson: unknown): DockerServerRow {
  const parsed = ServerYaml.safeParse(serverYaml);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`Docker MCP catalog servers/${dir}/server.yaml: ${issue.path.join('.')}: ${issue.message}`);
  }
  const y = parsed.data;
  const run = y.type === 'server' ? runOf(y) : { options: [], args: [], note: '' };
  const listed = z.array(Tool).safeParse(toolsJson ?? []);
  if (!listed.success) throw new Error(`Docker MCP catalog servers/${dir}/tools.json: not a list of tools`);
  return {
    name: y.name.trim(),
    title: clean(y.about.title) || y.name,
    description: clean(y.about.description),
    category: clean(y.meta?.category).toLowerCase(),
    tags: (y.meta?.tags ?? []).map((t) => clean(t).toLowerCase()).filter((t) => t !== '' && t !== 'remote'),
    kind: y.type,
    ...(y.image && { image: y.image.trim() }),
    ...(y.remote && { remote: { transport: y.remote.transport_type.trim(), url: y.remote.url.trim() } }),
    runOptions: run.options,
    runArgs: run.args,
    repositoryUrl: clean(y.source?.upstream ?? y.source?.project),
    install: installOf(y, run.note),
    tools: toolsOf([...(y.tools ?? []), ...listed.data]),
  };
}
