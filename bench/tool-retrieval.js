// `node bench/tool-retrieval.js [--dev]`: a stand-in for an outside tool-retrieval benchmark (issue 26). The catalog
// is a foreign one, every tool of Docker's MCP catalog that has a description as one skill
// (bench/eval/docker-tools.json), and the requests are task-style, each with the one to four tools that do the job
// (bench/eval/docker-tools-requests.json, split dev / test; the held-out docker-tools-requests-2.json, all test; and
// docker-tools-requests-3.json, all dev).
// Prints fused and lexical nDCG@10, Recall@5 and MRR, and Recall@5 of the grade-2 labels alone (the tools that do the
// job, leaving out close variants), for the dev half, and for the test half and the held-out set too without --dev; a
// set whose file says `"heldOut": true` has no dev half and is neither scored nor counted with --dev.
// The skills' vectors are computed at the first run and kept with the catalog's database in
// node_modules/.cache/axle-tool-retrieval.
// Then the same requests a server at a time: the catalog is the servers those tools belong to, each with its tool list
// (bench/eval/docker-servers.json), a tool's grade going to its server, among the bundled catalog's skills without
// tools (the bundled servers with tools are these servers). The servers are an operator's own: the vectors file the
// search reads holds only the other skills' vectors and passages (from the bundled file), so the servers' vectors are
// the model's (computed at the first run and kept in node_modules/.cache/axle-tool-retrieval-servers). The figures are
// printed without and with the passage vectors computed for the servers' tools (the rerank by best tool), so the
// rerank's worth on such a catalog is measured in one run, every other skill keeping its passages both times.
// `node bench/tool-retrieval.js --write-catalog <docker-mcp-registry dir>` rewrites both catalogs from a snapshot of
// github.com/docker/mcp-registry (the one ../shared/data holds); nothing else reads the snapshot.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readDockerCatalog } from '../packages/server/dist/catalog/build.js';
import { dockerConnection } from '../packages/server/dist/catalog/compose.js';
import { cut } from '../packages/server/dist/catalog/cut.js';
import { loadCatalog } from '../packages/server/dist/catalog/load.js';
import {
  informativeDockerTags,
  MCP_DEFAULT_CATEGORY,
  placeMcpServer,
  pricingForHostedMcpServer,
  pricingForMcpServer,
  qualityForMcpServer,
  slugify,
} from '../packages/server/dist/catalog/mapping.js';
import { systemClock } from '../packages/server/dist/clock.js';
import { createLogger } from '../packages/server/dist/logger.js';
import { createLearningsService } from '../packages/server/dist/services/learnings.js';
import {
  EMBEDDING_DIM,
  EMBEDDING_MODEL,
  embeddingText,
  textHash,
} from '../packages/server/dist/search/embedding-text.js';
import { skillPassages } from '../packages/server/dist/search/passages.js';
import { DEFAULT_PASSAGE_LIMIT } from '../packages/server/dist/search/semantic-index.js';
import { BUNDLED_VECTORS, encodeVectors, storedEntries } from '../packages/server/dist/search/vector-file.js';
import { createSkillsService } from '../packages/server/dist/services/skills.js';
import { openStore } from '../packages/server/dist/store/open.js';
import { score } from './lib/metrics.js';

const CATALOG = fileURLToPath(new URL('./eval/docker-tools.json', import.meta.url));
const SERVERS = fileURLToPath(new URL('./eval/docker-servers.json', import.meta.url));
const REQUEST_FILES = ['docker-tools-requests.json', 'docker-tools-requests-2.json', 'docker-tools-requests-3.json'];
/** Ranking depth asked for (MRR looks this deep). */
const DEPTH = 100;

const writeAt = process.argv.indexOf('--write-catalog');
if (writeAt >= 0) {
  const dir = process.argv[writeAt + 1];
  if (dir === undefined) throw new Error('--write-catalog needs the docker-mcp-registry directory');
  const docker = readDockerCatalog(dir);
  const skills = toolCatalog(docker);
  fs.writeFileSync(CATALOG, `${JSON.stringify(skills, null, 1)}\n`);
  const servers = serverCatalog(docker);
  fs.writeFileSync(SERVERS, `${JSON.stringify(servers, null, 1)}\n`);
  console.log(`${skills.length} tools written to ${CATALOG}, their ${servers.length} servers to ${SERVERS}`);
  process.exit(0);
}

const skills = loadCatalog(CATALOG);
const known = new Set(skills.map((s) => s.id));
const devOnly = process.argv.includes('--dev');
const requestSets = REQUEST_FILES.map((file, i) => {
  const { heldOut, queries } = JSON.parse(fs.readFileSync(new URL(`./eval/${file}`, import.meta.url), 'utf8'));
  const stale = queries.flatMap((q) => Object.keys(q.relevant).filter((id) => !known.has(id)));
  if (stale.length > 0) throw new Error(`${file} labels ids missing from the catalog: ${stale}`);
  if (heldOut === true && queries.some((q) => q.split !== 'test')) throw new Error(`${file} is held out: all test`);
  return { name: i === 0 ? '' : `set ${i + 1} `, heldOut: heldOut === true, queries };
}).filter((set) => !(devOnly && set.heldOut));

const dataDir = fileURLToPath(new URL('../node_modules/.cache/axle-tool-retrieval', import.meta.url));
fs.mkdirSync(dataDir, { recursive: true });
const store = await openStore({ dataDir, now: Date.now });
const service = await searchService(store, CATALOG);
const f3 = (x) => x.toFixed(3);
const splits = devOnly ? ['dev'] : ['dev', 'test'];
try {
  const started = performance.now();
  const warm = await service.search.semantic.settled;
  const state = service.searchState().semantic;
  if (state !== 'ready') throw new Error(`semantic search is ${state}`);
  console.log(
    `Tool retrieval: ${requestSets.map((set) => set.queries.length).join(' + ')} requests over ${skills.length} tools of Docker's MCP catalog; vectors ready after ${((performance.now() - started) / 1000).toFixed(1)} s (reused ${warm.reused}, bundled ${warm.bundled}, computed ${warm.computed})`,
  );
  for (const { name, queries } of requestSets)
    for (const split of splits) {
      const set = queries.filter((q) => q.split === split);
      if (set.length === 0) continue;
      for (const mode of ['fused', 'lexical']) {
        const r = await score(set, async (query) =>
          (await service.search.search({ query, mode, limit: DEPTH })).results.map((x) => x.id),
        );
        console.log(
          `${name}${split} (${set.length}) ${mode.padEnd(8)} R@5 ${f3(r.recall5)}  MRR ${f3(r.mrr)}  nDCG@10 ${f3(r.ndcg10)}  R@5 of grade 2 ${f3(r.recall5Exact)}`,
        );
        if (split === 'dev' && mode === 'fused' && process.env.EVAL_VERBOSE === 'dev')
          for (const p of r.per.filter((x) => x.rr < 1)) {
            const q = set.find((x) => x.id === p.id);
            const top = (await service.search.search({ query: q.query, mode, limit: 5 })).results.map((x) => x.id);
            console.log(
              `  ${q.id} rr ${f3(p.rr)} ${q.query}\n     want ${Object.keys(q.relevant).join(' ')}\n     got  ${top.join(' ')}`,
            );
          }
      }
    }
} finally {
  await service.close();
  await store.db.close();
}
await byServer();

/** The skills service over `catalogPath` in `store`, with the sentence model; `semantic` overrides its index options. */
function searchService(store, catalogPath, semantic) {
  return createSkillsService({
    repo: store.skills,
    db: store.db,
    logger: createLogger('warn'),
    catalogPath,
    semanticSearch: true,
    knowledgeHints: createLearningsService({
      db: store.db,
      learningsSearch: store.learningsSearch,
      clock: systemClock,
    }),
    // An offline measurement: a busy machine must not turn a slow model answer into a failure.
    modelWaitMs: 120_000,
    ...(semantic && { semantic }),
  });
}

/** The requests over the servers' catalog, each tool's grade its server's: without, then with computed passages. */
async function byServer() {
  const servers = loadCatalog(SERVERS);
  const serverOf = new Map(servers.flatMap((s) => s.tools.map((t) => [slugify(`${s.id} ${t.name}`), s.id])));
  const graded = (queries) =>
    queries.map((q) => {
      const relevant = {};
      for (const [id, grade] of Object.entries(q.relevant)) {
        const server = serverOf.get(id);
        if (server === undefined) throw new Error(`${id} is the tool of no server in ${SERVERS}`);
        relevant[server] = Math.max(relevant[server] ?? 0, grade);
      }
      return { ...q, relevant };
    });
  const serversDir = `${dataDir}-servers`;
  fs.mkdirSync(serversDir, { recursive: true });
  const ids = new Set(servers.map((s) => s.id));
  const others = loadCatalog().filter((s) => (s.tools?.length ?? 0) === 0 && !ids.has(s.id));
  const catalogPath = path.join(serversDir, 'catalog.json');
  fs.writeFileSync(catalogPath, JSON.stringify([...servers, ...others]));
  const vectorsFile = path.join(serversDir, 'others.vectors.bin');
  const othersHashes = others.flatMap((s) => [textHash(embeddingText(s)), ...skillPassages(s).map(textHash)]);
  const { entries } = storedEntries(BUNDLED_VECTORS, EMBEDDING_MODEL, othersHashes);
  fs.writeFileSync(vectorsFile, encodeVectors(EMBEDDING_MODEL, EMBEDDING_DIM, entries));
  console.log(
    `\nThe same requests over the ${servers.length} servers of those tools, with their tool lists, among ${others.length} bundled skills without tools:`,
  );
  for (const [label, passageLimit] of [
    ['without passages', 0],
    ['with passages', DEFAULT_PASSAGE_LIMIT],
  ]) {
    const serverStore = await openStore({ dataDir: serversDir, now: Date.now });
    const serverService = await searchService(serverStore, catalogPath, { vectorsFile, passageLimit });
    try {
      const warm = await serverService.search.semantic.settled;
      if (warm?.computed > servers.length) throw new Error(`${warm.computed} vectors computed: not only the servers'`);
      await serverService.search.semantic.caughtUp();
      for (const { name, queries } of requestSets)
        for (const split of splits) {
          const set = graded(queries.filter((q) => q.split === split));
          if (set.length === 0) continue;
          const r = await score(set, async (query) =>
            (await serverService.search.search({ query, limit: DEPTH })).results.map((x) => x.id),
          );
          console.log(
            `${name}${split} (${set.length}) fused, ${label.padEnd(16)} R@5 ${f3(r.recall5)}  MRR ${f3(r.mrr)}  nDCG@10 ${f3(r.ndcg10)}  R@5 of grade 2 ${f3(r.recall5Exact)}`,
          );
        }
    } finally {
      await serverService.close();
      await serverStore.db.close();
    }
  }
}

/**
 * One skill per server with a described tool: its title, description (cut as the bundled catalog's) and described
 * tools, the rest as toolCatalog's.
 */
function serverCatalog({ commit, servers }) {
  return servers
    .filter((row) => row.tools.some((t) => t.description !== ''))
    .map((row) => {
      const [tool] = toolCatalog({ commit, servers: [row] });
      return {
        ...tool,
        id: slugify(row.name),
        name: row.title,
        description: cut(row.description || row.title, 300),
        tools: row.tools.filter((t) => t.description !== '').map((t) => ({ name: t.name, description: t.description })),
      };
    });
}

/** One skill per described tool of each server: id `<server>-<tool>`, the tool's name and description, the server's category, tags and connection. */
function toolCatalog({ commit, servers }) {
  return servers.flatMap((row) => {
    const tags = informativeDockerTags(row.tags).map(slugify);
    const category =
      placeMcpServer(`${row.title} ${row.description} ${tags.join(' ')}`, {
        category: row.category,
        tools: row.tools,
      }) ?? MCP_DEFAULT_CATEGORY;
    const connection = dockerConnection(row, commit);
    const hosted = row.remote !== undefined && row.image === undefined;
    const pricing = hosted ? pricingForHostedMcpServer() : pricingForMcpServer(connection.env ?? []);
    const quality = qualityForMcpServer({
      launchable: row.image !== undefined,
      versioned: false,
      described: true,
      hasRepository: row.repositoryUrl !== '',
    });
    return row.tools
      .filter((t) => t.description !== '')
      .map((t) => ({
        id: slugify(`${row.name} ${t.name}`),
        name: t.name,
        description: t.description,
        category,
        tags,
        type: 'mcp_server',
        connection,
        pricing,
        quality,
      }));
  });
}
