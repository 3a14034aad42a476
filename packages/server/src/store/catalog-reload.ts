// A catalog reload by difference, for both dialects: the stored skills are compared with the new entries by id, and
// only the skills that left, changed or arrived are written (with their index rows), and the positions that moved.
// The comparison is made before the write transaction, so a reload changing a few skills of a large catalog holds
// it briefly instead of writing every skill again.
import { PAGE_ROWS, pages } from './pages.js';
import type { Queryable } from './queryable.js';
import type { CatalogEntry } from './skills.js';

/** meta key of the stored catalog's fingerprint: which catalog the rows are. */
export const FINGERPRINT_KEY = 'catalog_fingerprint';

/**
 * A reload writing more skills than this share of the catalog replaces it whole: from about there on, deleting every
 * row and inserting each again costs less than deleting and inserting skills one by one in a large index
 * (bench/README.md).
 */
const DIFF_MAX_SHARE = 0.5;
/** Ids written per statement. */
const WRITE_BATCH = 500;

/** A catalog entry at its position (from 1, catalog order). */
export interface PlacedEntry extends CatalogEntry {
  position: number;
}

/** The skills row's columns both dialects store (id, slug, category, type, pricing_model, position, data). */
export const skillColumns = ({ skill, slug, position }: PlacedEntry) => [
  skill.id,
  slug,
  skill.category,
  skill.type,
  skill.pricing.model.toLowerCase(),
  position,
  JSON.stringify(skill),
];

/** What a dialect writes of a difference: its skills rows and their index rows together. */
export interface CatalogWriter {
  /** Deletes the skills of `ids` and their index rows. */
  remove(ids: string[]): Promise<void>;
  /** Inserts the skills of `rows` and their index rows. */
  insert(rows: PlacedEntry[]): Promise<void>;
}

interface StoredSkill {
  id: string;
  slug: string;
  position: number;
  data: string;
}

interface CatalogDiff {
  /** Stored skills to delete: those that left the catalog and those whose row changed (inserted again). */
  removed: string[];
  /** Skills to insert: new ones and changed ones. */
  inserted: PlacedEntry[];
  /** Unchanged skills whose position changed. */
  moved: Array<{ id: string; position: number }>;
}

/** A reload worked out from the stored catalog. */
interface ReloadPlan {
  /** The fingerprint of the catalog it was worked out from: the plan holds while that is still the stored one. */
  base: string | undefined;
  /** What to write, or undefined to replace the catalog whole (nothing stored, or most of it changed). */
  diff: CatalogDiff | undefined;
}

/**
 * The plan bringing the stored catalog to `entries`; a skill changed when its JSON or its slug did. The stored skills
 * are read in pages and compared in chunks, yielding to the event loop between them, so requests are served
 * meanwhile.
 */
export async function planReload(q: Queryable, entries: readonly CatalogEntry[]): Promise<ReloadPlan> {
  const unmatched = new Map<string, StoredSkill>();
  // Each page names the fingerprint stored when it was read: pages of one fingerprint are of one catalog.
  const fingerprints = new Set<string | null>();
  const read = (after: string) =>
    q.all<StoredSkill & { fingerprint: string | null }>(
      `SELECT id, slug, position, data, (SELECT value FROM meta WHERE key = ?) AS fingerprint
         FROM skills WHERE id > ? ORDER BY id LIMIT ?`,
      [FINGERPRINT_KEY, after, PAGE_ROWS],
    );
  for await (const rows of pages(read, (r) => r.id, '')) {
    for (const { fingerprint, ...s } of rows) {
      fingerprints.add(fingerprint);
      unmatched.set(s.id, s);
    }
  }
  // No plan without one fingerprint: nothing is stored, another instance reloaded meanwhile, or the index may not
  // match the rows (a migration that rebuilt it, or changed how text is indexed, forgot the fingerprint).
  const base = fingerprints.size === 1 ? ([...fingerprints][0] ?? undefined) : undefined;
  if (base === undefined) return { base, diff: undefined };
  const inserted: PlacedEntry[] = [];
  const moved: CatalogDiff['moved'] = [];
  for (const [i, entry] of entries.entries()) {
    if (i % PAGE_ROWS === PAGE_ROWS - 1) await new Promise((resolve) => setImmediate(resolve));
    const position = i + 1;
    // Each stored skill is matched once: a duplicate id in `entries` is inserted, and fails as in a full import.
    const s = unmatched.get(entry.skill.id);
    if (s !== undefined && s.slug === entry.slug && s.data === JSON.stringify(entry.skill)) {
      unmatched.delete(s.id);
      if (s.position !== position) moved.push({ id: s.id, position });
    } else inserted.push({ ...entry, position });
  }
  if (inserted.length > DIFF_MAX_SHARE * entries.length) return { base, diff: undefined };
  return { base, diff: { removed: [...unmatched.keys()], inserted, moved } };
}

/** Writes `diff` through the dialect's `write`, in the caller's transaction. */
export async function writeCatalogDiff(q: Queryable, diff: CatalogDiff, write: CatalogWriter): Promise<void> {
  if (diff.removed.length > 0) await write.remove(diff.removed);
  // Positions may pass each other: PostgreSQL checks their uniqueness at commit (290_catalog_by_difference.sql).
  for (let i = 0; i < diff.moved.length; i += WRITE_BATCH) {
    const batch = diff.moved.slice(i, i + WRITE_BATCH);
    await q.run(
      `UPDATE skills SET position = m.column2
         FROM (VALUES ${batch.map(() => '(?, CAST(? AS BIGINT))').join(', ')}) AS m WHERE skills.id = m.column1`,
      batch.flatMap((m) => [m.id, m.position]),
    );
  }
  if (diff.inserted.length > 0) await write.insert(diff.inserted);
  // Vectors of the skills that left the catalog; those still present are kept (their text hash decides reuse).
  const back = new Set(diff.inserted.map((e) => e.skill.id));
  const left = diff.removed.filter((id) => !back.has(id));
  for (let i = 0; i < left.length; i += WRITE_BATCH) {
    const batch = left.slice(i, i + WRITE_BATCH);
    await q.run(`DELETE FROM skill_embeddings WHERE skill_id IN (${batch.map(() => '?').join(', ')})`, batch);
  }
}
