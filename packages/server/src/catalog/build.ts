// `npm run catalog`: reads the source snapshots and the project's examples, writes catalog/skills.json and copies
// the snapshots' licenses. The only module of the importer that touches the file system.
//
//   node packages/server/dist/catalog/build.js [--sources <dir>] [--out <dir>]
//
// <dir> for --sources holds public-apis/, mcp-registry/ and docker-mcp-registry/ (default ../shared/data from the repo
// root, or $CATALOG_SOURCES); --out defaults to packages/server/catalog.
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { buildCatalog, type CatalogSources, categoryCounts, serializeCatalog } from './compose.js';
import { type DockerServerRow, parseDockerServer } from './parse-docker-registry.js';

const PUBLIC_APIS = 'public-apis';
const MCP_REGISTRY = 'mcp-registry';
const MCP_SEED_FILE = 'seed_2025_05_16.json';
const DOCKER_REGISTRY = 'docker-mcp-registry';
/** The project's own source in catalog/: the requests each skill answers, by id. */
const EXAMPLES_FILE = 'examples.json';

/** Docker's catalog: every servers/<dir>/server.yaml (and tools.json when present), and the commit SOURCE.md names. */
export function readDockerCatalog(dir: string): { commit: string; servers: DockerServerRow[] } {
  const commit = /\b[0-9a-f]{40}\b/.exec(readFileSync(join(dir, 'SOURCE.md'), 'utf8'))?.[0];
  if (commit === undefined) throw new Error(`${dir}/SOURCE.md: names no commit`);
  const servers = readdirSync(join(dir, 'servers'))
    .sort()
    .map((name) => {
      const at = join(dir, 'servers', name);
      const tools = join(at, 'tools.json');
      const yaml: unknown = parseYaml(readFileSync(join(at, 'server.yaml'), 'utf8'));
      return parseDockerServer(name, yaml, existsSync(tools) ? JSON.parse(readFileSync(tools, 'utf8')) : undefined);
    });
  return { commit, servers };
}

/** Same relative path from src/catalog and dist/catalog. */
const packageRoot = fileURLToPath(new URL('../../', import.meta.url));
const repoRoot = join(packageRoot, '..', '..');

/** What the catalog is built from: the snapshots in `dir` and the project's own examples. */
export function readSources(dir: string): CatalogSources {
  return {
    publicApisMarkdown: readFileSync(join(dir, PUBLIC_APIS, 'README.md'), 'utf8'),
    mcpSeed: JSON.parse(readFileSync(join(dir, MCP_REGISTRY, MCP_SEED_FILE), 'utf8')),
    docker: readDockerCatalog(join(dir, DOCKER_REGISTRY)),
    examples: JSON.parse(readFileSync(join(packageRoot, 'catalog', EXAMPLES_FILE), 'utf8')),
  };
}

function arg(argv: readonly string[], flag: string): string | undefined {
  const i = argv.indexOf(flag);
  return i >= 0 ? argv[i + 1] : undefined;
}

export function run(argv: readonly string[], env: NodeJS.ProcessEnv): void {
  const sources = arg(argv, '--sources') ?? env.CATALOG_SOURCES ?? join(repoRoot, '..', 'shared', 'data');
  const out = arg(argv, '--out') ?? join(packageRoot, 'catalog');

  const skills = buildCatalog(readSources(sources));

  mkdirSync(join(out, 'licenses'), { recursive: true });
  writeFileSync(join(out, 'skills.json'), serializeCatalog(skills));
  for (const source of [PUBLIC_APIS, MCP_REGISTRY, DOCKER_REGISTRY]) {
    copyFileSync(join(sources, source, 'LICENSE'), join(out, 'licenses', `${source}.LICENSE`));
  }

  const counts = categoryCounts(skills);
  console.log(`wrote ${skills.length} skills to ${join(out, 'skills.json')}`);
  for (const [category, n] of Object.entries(counts)) {
    console.log(`  ${category.padEnd(20)} ${String(n).padStart(5)}  ${((100 * n) / skills.length).toFixed(1)}%`);
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  run(process.argv.slice(2), process.env);
}
