import { createHash } from 'node:crypto';
import { type DiscoverFilters, type SearchState, type SkillDetail, VERSIONS } from '@axle/sdk';
import { catalogFileChunks, parseCatalogFile, readCatalogFile } from '../catalog/load.js';
import { slugify } from '../catalog/mapping.js';
import { syncedSkills } from '../catalog/official-registry.js';
import { contentPreview } from '../domain/skill-preview.js';
import type { Logger } from '../logger.js';
import { EmbedderClient, EmbedderPool } from '../search/embedder.js';
import { DEFAULT_PASSAGE_LIMIT, SemanticIndex, type SemanticIndexOptions } from '../search/semantic-index.js';
import { wholeWordPieces } from '../search/vocabulary.js';
import type { Queryable } from '../store/queryable.js';
import { registryStore } from '../store/registry.js';
import type { SkillsStore } from '../store/skills.js';
import type { KnowledgeHints } from './learnings-port.js';
import { createSkillSearch, type SearchOutcome, type SkillSearch, type SkillSearchOptions } from './skill-search.js';

export interface SkillsServiceOptions {
  /** The dialect's skills store (catalog, full-text search, stored vectors). */
  repo: SkillsStore;
  /** The database the registry sync writes synced servers to (store/registry.ts). */
  db: Queryable;
  logger: Logger;
  /** The operator's catalog file; the bundled catalog when unset. */
  catalogPath?: string;
  semanticSearch: boolean;
  /** Embedding workers (see EmbedderPool); 1 when unset. */
  searchWorkers?: number;
  /** Searches that may wait for an embedding worker before search answers lexically (see EmbedderPool). */
  searchQueueMax?: number;
  /** How long a request waits for the model before going on without it (see SemanticIndex). */
  modelWaitMs?: number;
  /** The embedding worker's script; the compiled embed-worker by default (tests give a stand-in that stalls). */
  embedWorkerFile?: string;
  search?: SkillSearchOptions;
  semantic?: Partial<SemanticIndexOptions>;
  /** The semantic warm-up waits for this (the server passes its listen) so it does not delay the first /health. */
  semanticStartsAfter?: Promise<unknown>;
  /** Answers the knowledge_hint of POST /discover. */
  knowledgeHints: KnowledgeHints;
}

/**
 * SHA-256 of the catalog file's bytes (and the API version, whose schemas validate it): a changed
 * catalog replaces the stored one. Hashing the bytes lets an unchanged catalog skip parsing.
 */
export const catalogFingerprint = (bytes: Iterable<Uint8Array>, syncGeneration = 0): string => {
  const hash = createHash('sha256').update(`${VERSIONS.openapi}\0`);
  for (const chunk of bytes) hash.update(chunk);
  // Synced registry servers join the catalog: a sync that changed them changes the fingerprint.
  if (syncGeneration > 0) hash.update(`\0registry-sync ${syncGeneration}`);
  return hash.digest('hex');
};

/** The skills registry: the catalog in the store, lookups, counts and search. What AppDeps.skills exposes. */
export interface SkillsService {
  readonly search: SkillSearch;
  count(): Promise<number>;
  countByCategory(): Promise<Record<string, number>>;
  countByType(): Promise<Record<string, number>>;
  searchState(): SearchState;
  /** By id or by a slug of the name, case-insensitively. */
  get(idOrSlug: string): Promise<SkillDetail | undefined>;
  /** A search served to a client (counted for GET /stats by the count-searches middleware). */
  discover(query: string, filters: DiscoverFilters, limit: number): Promise<SearchOutcome>;
  /** Null until approved learnings exist; then a pointer to POST /knowledge for the same query. */
  knowledgeHint(query: string): Promise<string | null>;
  /**
   * Re-imports the catalog when the file or the synced registry servers changed (after a sync); true when it did.
   * Lexical search sees the change at once; the semantic index catches up in the background (new skills' vectors
   * computed on a spare worker), serving the previous one meanwhile.
   */
  reloadCatalog(): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * Imports the catalog when its file changed (throws with a message naming the entry and field if it
 * is invalid; an unchanged file was validated when imported and is not parsed again, which keeps
 * restarts of a large catalog quick), starts the semantic side.
 */
export async function createSkillsService(opts: SkillsServiceOptions): Promise<SkillsService> {
  const { repo } = opts;
  /** The fingerprint this instance last loaded: another one means another instance replaced the catalog. */
  let known: string | undefined;
  let counts = { total: 0, byCategory: {} as Record<string, number>, byType: {} as Record<string, number> };

  /** The file's skills plus the synced servers it does not hold, when the fingerprint changed. */
  async function load(): Promise<{ fingerprint: string; replaced: boolean }> {
    const generation = await registryStore.generation(opts.db);
    // Hashed in chunks and read whole only to import it, so no copy of the file stays in memory.
    let fingerprint = catalogFingerprint(catalogFileChunks(opts.catalogPath), generation);
    let replaced = false;
    if ((await repo.catalogFingerprint()) !== fingerprint) {
      const file = readCatalogFile(opts.catalogPath);
      fingerprint = catalogFingerprint([file.bytes], generation);
      const skills = parseCatalogFile(file);
      const synced = generation > 0 ? syncedSkills(skills, await registryStore.visible(opts.db)) : [];
      replaced = await repo.replaceCatalog(
        [...skills, ...synced].map((skill) => ({ skill, slug: slugify(skill.name) })),
        fingerprint,
      );
    }
    if (known !== undefined && known !== fingerprint && !replaced) repo.forget();
    known = fingerprint;
    // The catalog changes only here, so its counts are read once per load.
    const [total, byCategory, byType] = await Promise.all([
      repo.count(),
      repo.countBy('category'),
      repo.countBy('type'),
    ]);
    counts = { total, byCategory, byType };
    return { fingerprint, replaced };
  }

  const { fingerprint, replaced } = await load();
  opts.logger.info({ skills: counts.total, fingerprint: fingerprint.slice(0, 12), replaced }, 'skills catalog');
  const semantic = opts.semanticSearch
    ? SemanticIndex.start({
        repo,
        logger: opts.logger,
        startAfter: opts.semanticStartsAfter,
        waitMs: opts.modelWaitMs,
        passageLimit: DEFAULT_PASSAGE_LIMIT,
        createEmbedder: () =>
          new EmbedderPool(
            opts.searchWorkers ?? 1,
            () => new EmbedderClient(opts.embedWorkerFile),
            opts.searchQueueMax,
          ),
        ...opts.semantic,
      })
    : SemanticIndex.disabled();
  // Lower-case product names are read only beside the sentence model, whose vocabulary tells ordinary words.
  const ordinaryWord = opts.semanticSearch ? await wholeWordPieces() : undefined;
  const search = createSkillSearch({ repo, semantic, ordinaryWord, ...opts.search });
  return {
    search,
    count: async () => counts.total,
    countByCategory: async () => ({ ...counts.byCategory }),
    countByType: async () => ({ ...counts.byType }),
    searchState: () => search.state(),
    async get(idOrSlug) {
      // Names without a Latin letter or digit have the empty slug: a key that slugs to it is looked up as an id alone.
      const skill = await repo.findByIdOrSlug(idOrSlug.trim().toLowerCase(), slugify(idOrSlug) || null);
      return skill && { ...skill, content_preview: contentPreview(skill) };
    },
    discover: (query, filters, limit) => search.search({ query, filters, limit }),
    knowledgeHint: (query) => opts.knowledgeHints.hintFor(query),
    async reloadCatalog() {
      const before = known;
      const { replaced } = await load();
      if (replaced) opts.logger.info({ skills: counts.total }, 'skills catalog reloaded');
      if (known !== before) void semantic.refresh();
      return replaced;
    },
    close: () => semantic.close(),
  };
}
