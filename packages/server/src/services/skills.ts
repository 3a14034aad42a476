import { createHash } from 'node:crypto';
import { type DiscoverFilters, type SearchState, type SkillDetail, VERSIONS } from '@axle/sdk';
import { parseCatalogFile, readCatalogFile } from '../catalog/load.js';
import { slugify } from '../catalog/mapping.js';
import { contentPreview } from '../domain/skill-preview.js';
import type { Logger } from '../logger.js';
import { EmbedderPool } from '../search/embedder.js';
import { SemanticIndex, type SemanticIndexOptions } from '../search/semantic-index.js';
import type { Database } from '../store/db.js';
import { SqliteSkillsRepository, type SkillsRepository } from '../store/skills-repository.js';
import type { KnowledgeHints } from './learnings-port.js';
import { type SearchOutcome, SkillSearch, type SkillSearchOptions } from './skill-search.js';

export interface SkillsServiceOptions {
  db: Database;
  logger: Logger;
  /** The operator's catalog file; the bundled catalog when unset. */
  catalogPath?: string;
  semanticSearch: boolean;
  /** Embedding workers (see EmbedderPool); 1 when unset. */
  searchWorkers?: number;
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
export const catalogFingerprint = (bytes: Uint8Array): string => createHash('sha256').update(`${VERSIONS.openapi}\0`).update(bytes).digest('hex');

/** The skills registry: the catalog in the store, lookups, counts and search. What AppDeps.skills exposes. */
export class SkillsService {
  private constructor(
    private readonly repo: SkillsRepository,
    readonly search: SkillSearch,
    /** The catalog is fixed for the life of the process, so its counts are read once. */
    private readonly counts: { total: number; byCategory: Record<string, number>; byType: Record<string, number> },
    private readonly knowledgeHints: KnowledgeHints,
  ) {}

  /**
   * Imports the catalog when its file changed (throws with a message naming the entry and field if it
   * is invalid; an unchanged file was validated when imported and is not parsed again: 0.5 s at
   * 20,000 skills), starts the semantic side.
   */
  static async open(opts: SkillsServiceOptions): Promise<SkillsService> {
    const file = readCatalogFile(opts.catalogPath);
    const repo = new SqliteSkillsRepository(opts.db);
    const fingerprint = catalogFingerprint(file.bytes);
    let replaced = false;
    if ((await repo.catalogFingerprint()) !== fingerprint) {
      const skills = parseCatalogFile(file);
      replaced = await repo.replaceCatalog(
        skills.map((skill) => ({ skill, slug: slugify(skill.name) })),
        fingerprint,
      );
    }
    const [total, byCategory, byType] = await Promise.all([repo.count(), repo.countBy('category'), repo.countBy('type')]);
    opts.logger.info({ skills: total, fingerprint: fingerprint.slice(0, 12), replaced }, 'skills catalog');
    const semantic = opts.semanticSearch
      ? SemanticIndex.start({
          repo,
          logger: opts.logger,
          startAfter: opts.semanticStartsAfter,
          createEmbedder: () => new EmbedderPool(opts.searchWorkers ?? 1),
          ...opts.semantic,
        })
      : SemanticIndex.disabled();
    return new SkillsService(repo, new SkillSearch(repo, semantic, opts.search), { total, byCategory, byType }, opts.knowledgeHints);
  }

  count(): Promise<number> {
    return Promise.resolve(this.counts.total);
  }
  countByCategory(): Promise<Record<string, number>> {
    return Promise.resolve({ ...this.counts.byCategory });
  }
  countByType(): Promise<Record<string, number>> {
    return Promise.resolve({ ...this.counts.byType });
  }
  searchState(): SearchState {
    return this.search.state();
  }

  /** By id or by a slug of the name, case-insensitively. */
  async get(idOrSlug: string): Promise<SkillDetail | undefined> {
    const skill = await this.repo.findByIdOrSlug(idOrSlug.trim().toLowerCase(), slugify(idOrSlug));
    return skill && { ...skill, content_preview: contentPreview(skill) };
  }

  /** A search served to a client (counted for GET /stats by the count-searches middleware). */
  discover(query: string, filters: DiscoverFilters, limit: number): Promise<SearchOutcome> {
    return this.search.search({ query, filters, limit });
  }

  /** Null until approved learnings exist; then a pointer to POST /knowledge for the same query. */
  knowledgeHint(query: string): Promise<string | null> {
    return this.knowledgeHints.hintFor(query);
  }

  close(): Promise<void> {
    return this.search.semantic.close();
  }
}
