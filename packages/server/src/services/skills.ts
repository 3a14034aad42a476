import { createHash } from 'node:crypto';
import { type DiscoverFilters, type SearchState, type SkillDetail, VERSIONS } from '@axle/sdk';
import { parseCatalogFile, readCatalogFile } from '../catalog/load.js';
import { slugify } from '../catalog/mapping.js';
import { contentPreview } from '../domain/skill-preview.js';
import { type Clock, systemClock } from '../clock.js';
import type { Logger } from '../logger.js';
import { EmbedderPool } from '../search/embedder.js';
import { SemanticIndex, type SemanticIndexOptions } from '../search/semantic-index.js';
import type { Database } from '../store/db.js';
import { SqliteSkillsRepository, type SkillsRepository } from '../store/skills-repository.js';
import { type SearchOutcome, SkillSearch, type SkillSearchOptions } from './skill-search.js';

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
  search?: SkillSearchOptions;
  semantic?: Partial<SemanticIndexOptions>;
  /** The semantic warm-up waits for this (the server passes its listen) so it does not delay the first /health. */
  semanticStartsAfter?: Promise<unknown>;
  clock?: Clock;
}

/** How old the "approved learnings exist" answer behind the knowledge hint may be; it cost two statements per search. */
const HINT_CHECK_TTL_MS = 1000;

/**
 * SHA-256 of the catalog file's bytes (and the API version, whose schemas validate it): a changed
 * catalog replaces the stored one. Hashing the bytes lets an unchanged catalog skip parsing.
 */
export const catalogFingerprint = (bytes: Uint8Array): string => createHash('sha256').update(`${VERSIONS.openapi}\0`).update(bytes).digest('hex');

/** Points to the knowledge marketplace for the same query. */
export const knowledgeHint = (query: string): string =>
  `Other agents have shared operational learnings; search them free with POST /knowledge {"query": ${JSON.stringify(query)}}.`;

/** The skills registry: the catalog in the store, lookups, counts and search. What AppDeps.skills exposes. */
export class SkillsService {
  private learningsExist: { at: number; yes: boolean } | undefined;
  private checkingLearnings: Promise<boolean> | undefined;

  private constructor(
    private readonly repo: SkillsRepository,
    readonly search: SkillSearch,
    /** The catalog is fixed for the life of the process, so its counts are read once. */
    private readonly counts: { total: number; byCategory: Record<string, number>; byType: Record<string, number> },
    private readonly clock: Clock,
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
          createEmbedder: () => new EmbedderPool(opts.searchWorkers ?? 1, undefined, opts.searchQueueMax),
          ...opts.semantic,
        })
      : SemanticIndex.disabled();
    return new SkillsService(repo, new SkillSearch(repo, semantic, opts.search), { total, byCategory, byType }, opts.clock ?? systemClock);
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
  async knowledgeHint(query: string): Promise<string | null> {
    return (await this.approvedLearningsExist()) ? knowledgeHint(query) : null;
  }

  /** The first answer is awaited; later ones come from memory, refreshed in the background once stale. */
  private async approvedLearningsExist(): Promise<boolean> {
    const check = () =>
      (this.checkingLearnings ??= this.repo
        .hasApprovedLearnings()
        .then((yes) => {
          this.learningsExist = { at: this.clock.now(), yes };
          return yes;
        })
        .finally(() => (this.checkingLearnings = undefined)));
    if (!this.learningsExist) return check();
    if (this.clock.now() - this.learningsExist.at >= HINT_CHECK_TTL_MS) check().catch(() => undefined);
    return this.learningsExist.yes;
  }

  close(): Promise<void> {
    return this.search.semantic.close();
  }
}
