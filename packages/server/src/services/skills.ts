import { createHash } from 'node:crypto';
import { type DiscoverFilters, type SearchState, type SkillDetail, VERSIONS } from '@axle/sdk';
import { parseCatalogFile, readCatalogFile } from '../catalog/load.js';
import { slugify } from '../catalog/mapping.js';
import { contentPreview } from '../domain/skill-preview.js';
import type { Logger } from '../logger.js';
import { EmbedderClient, EmbedderPool } from '../search/embedder.js';
import { SemanticIndex, type SemanticIndexOptions } from '../search/semantic-index.js';
import type { Database } from '../store/db.js';
import { createSkillsStore } from '../store/skills.js';
import type { KnowledgeHints } from './learnings-port.js';
import { createSkillSearch, type SearchOutcome, type SkillSearch, type SkillSearchOptions } from './skill-search.js';

export interface SkillsServiceOptions {
  db: Database;
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
export const catalogFingerprint = (bytes: Uint8Array): string =>
  createHash('sha256').update(`${VERSIONS.openapi}\0`).update(bytes).digest('hex');

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
  close(): Promise<void>;
}

/**
 * Imports the catalog when its file changed (throws with a message naming the entry and field if it
 * is invalid; an unchanged file was validated when imported and is not parsed again, which keeps
 * restarts of a large catalog quick), starts the semantic side.
 */
export async function createSkillsService(opts: SkillsServiceOptions): Promise<SkillsService> {
  const file = readCatalogFile(opts.catalogPath);
  const repo = createSkillsStore(opts.db);
  const fingerprint = catalogFingerprint(file.bytes);
  let replaced = false;
  if ((await repo.catalogFingerprint()) !== fingerprint) {
    const skills = parseCatalogFile(file);
    replaced = await repo.replaceCatalog(
      skills.map((skill) => ({ skill, slug: slugify(skill.name) })),
      fingerprint,
    );
  }
  // The catalog is fixed for the life of the process, so its counts are read once.
  const [total, byCategory, byType] = await Promise.all([repo.count(), repo.countBy('category'), repo.countBy('type')]);
  opts.logger.info({ skills: total, fingerprint: fingerprint.slice(0, 12), replaced }, 'skills catalog');
  const semantic = opts.semanticSearch
    ? SemanticIndex.start({
        repo,
        logger: opts.logger,
        startAfter: opts.semanticStartsAfter,
        waitMs: opts.modelWaitMs,
        createEmbedder: () =>
          new EmbedderPool(
            opts.searchWorkers ?? 1,
            () => new EmbedderClient(opts.embedWorkerFile),
            opts.searchQueueMax,
          ),
        ...opts.semantic,
      })
    : SemanticIndex.disabled();
  const search = createSkillSearch({ repo, semantic, ...opts.search });
  return {
    search,
    count: async () => total,
    countByCategory: async () => ({ ...byCategory }),
    countByType: async () => ({ ...byType }),
    searchState: () => search.state(),
    async get(idOrSlug) {
      const skill = await repo.findByIdOrSlug(idOrSlug.trim().toLowerCase(), slugify(idOrSlug));
      return skill && { ...skill, content_preview: contentPreview(skill) };
    },
    discover: (query, filters, limit) => search.search({ query, filters, limit }),
    knowledgeHint: (query) => opts.knowledgeHints.hintFor(query),
    close: () => semantic.close(),
  };
}
