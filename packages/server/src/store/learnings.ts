import type { InjectionFlag, LEARNING_STATUSES, SUBMISSION_CHANNELS } from '@axle/sdk';
import type { Queryable } from './queryable.js';

/** A learnings row (migration 003). JSON columns are decoded; money is micro-USDC; times are Unix ms. */
export interface LearningRecord {
  id: string;
  status: (typeof LEARNING_STATUSES)[number];
  reviewReason: string[] | null;
  category: string;
  title: string;
  body: string;
  bodyHash: string;
  tags: string[];
  taskContext: string;
  outcome: string | null;
  relatedSkills: string[];
  contributorAccountId: string | null;
  contributorWallet: string | null;
  contributorKeyLabel: string | null;
  contributorAgent: string;
  submissionChannel: (typeof SUBMISSION_CHANNELS)[number];
  sourceClient: string | null;
  visibility: string;
  /** Input of the dynamic price: set by complexity. */
  basePriceMicro: number;
  /** The one price: search results show it, the 402 asks it, unlocks charge it (docs/pricing.md). */
  currentPriceMicro: number;
  /** The price the contributor set on submit (unlock_price); when set it is the current price. */
  overridePriceMicro: number | null;
  /** The current price before last_repriced_at: payable for a 402's validity after a reprice, shown nowhere. */
  priorPriceMicro: number | null;
  complexity: string;
  lastRepricedAt: number;
  qualityScore: number | null;
  qualityDimensions: Record<string, number> | null;
  unlockCount: number;
  ratingCount: number;
  avgHelpfulness: number;
  grossMicro: number;
  contributorMicro: number;
  platformMicro: number;
  /** Rule names only in rows stored before the screen's flags carried layer and span. */
  injectionFlags: Array<InjectionFlag | string> | null;
  possibleDuplicateOf: string | null;
  possibleDuplicateSimilarity: number | null;
  publishedAt: number | null;
  createdAt: number;
  updatedAt: number;
  /** Assigned in code at insert; the full-text index's row id. */
  seq?: number | null;
  contentHash?: string | null;
  sensitivityFindings?: string[] | null;
  replacesId?: string | null;
  /** Why only the regex screens ran on it; null when every screen ran. */
  screeningNote?: string | null;
}

/** Fields a new submission must supply; counters and totals start at zero. */
export type NewLearning = Omit<
  LearningRecord,
  | 'unlockCount'
  | 'ratingCount'
  | 'avgHelpfulness'
  | 'grossMicro'
  | 'contributorMicro'
  | 'platformMicro'
  | 'priorPriceMicro'
>;

// record field -> column, and whether the column holds JSON.
const COLUMNS: Array<[keyof LearningRecord, string, boolean?]> = [
  ['id', 'id'],
  ['status', 'status'],
  ['reviewReason', 'review_reason', true],
  ['category', 'category'],
  ['title', 'title'],
  ['body', 'body'],
  ['bodyHash', 'body_hash'],
  ['tags', 'tags', true],
  ['taskContext', 'task_context'],
  ['outcome', 'outcome'],
  ['relatedSkills', 'related_skills', true],
  ['contributorAccountId', 'contributor_account_id'],
  ['contributorWallet', 'contributor_wallet'],
  ['contributorKeyLabel', 'contributor_key_label'],
  ['contributorAgent', 'contributor_agent'],
  ['submissionChannel', 'submission_channel'],
  ['sourceClient', 'source_client'],
  ['visibility', 'visibility'],
  ['basePriceMicro', 'base_price_micro'],
  ['currentPriceMicro', 'current_price_micro'],
  ['overridePriceMicro', 'override_price_micro'],
  ['complexity', 'complexity'],
  ['lastRepricedAt', 'last_repriced_at'],
  ['priorPriceMicro', 'prior_price_micro'],
  ['qualityScore', 'quality_score'],
  ['qualityDimensions', 'quality_dimensions', true],
  ['unlockCount', 'unlock_count'],
  ['ratingCount', 'rating_count'],
  ['avgHelpfulness', 'avg_helpfulness'],
  ['grossMicro', 'gross_micro'],
  ['contributorMicro', 'contributor_micro'],
  ['platformMicro', 'platform_micro'],
  ['injectionFlags', 'injection_flags', true],
  ['possibleDuplicateOf', 'possible_duplicate_of'],
  ['possibleDuplicateSimilarity', 'possible_duplicate_similarity'],
  ['publishedAt', 'published_at'],
  ['createdAt', 'created_at'],
  ['updatedAt', 'updated_at'],
  ['seq', 'seq'],
  ['contentHash', 'content_hash'],
  ['sensitivityFindings', 'sensitivity_findings', true],
  ['replacesId', 'replaces_id'],
  ['screeningNote', 'screening_note'],
];
const SELECT = COLUMNS.map(([f, c]) => (f === c ? c : `${c} AS "${f}"`)).join(', ');
const JSON_FIELDS = COLUMNS.filter(([, , json]) => json).map(([f]) => f);

function decode(row: Record<string, unknown>): LearningRecord {
  for (const f of JSON_FIELDS) if (typeof row[f] === 'string') row[f] = JSON.parse(row[f] as string);
  return row as unknown as LearningRecord;
}

export interface LearningFilters {
  category?: string;
  outcome?: string;
  /** A skill id the learning lists in related_skills. */
  relatedSkill?: string;
}

/** The fields of a learning that search ranking reads. */
export type RankingFields = Pick<
  LearningRecord,
  'id' | 'avgHelpfulness' | 'ratingCount' | 'qualityScore' | 'publishedAt' | 'createdAt'
>;

/** Search impressions and unlocks over the last 7 and 30 days. */
export interface Demand {
  impressions7d: number;
  impressions30d: number;
  unlocks7d: number;
  unlocks30d: number;
}

/** A held item as the review summary reads it. */
export type PendingTriage = Pick<
  LearningRecord,
  'id' | 'title' | 'category' | 'createdAt' | 'reviewReason' | 'qualityDimensions'
>;

const DAY_MS = 86_400_000;
/** The meta row of a pending band-key rebuild (migration 410). */
const BAND_KEYS_REBUILD = 'near_duplicate_keys_rebuild_after';
/** The demand table's day number of a time. */
export const dayOf = (ms: number) => Math.floor(ms / DAY_MS);

/** SQL conditions (each preceded by AND) for `filters` on the learnings table aliased `alias`; both dialects' search uses it. */
export function learningFilterSql(filters: LearningFilters, alias: string): { sql: string; params: unknown[] } {
  const clauses: string[] = [];
  const params: unknown[] = [];
  if (filters.category !== undefined) {
    clauses.push(`${alias}.category = ?`);
    params.push(filters.category);
  }
  if (filters.outcome !== undefined) {
    clauses.push(`${alias}.outcome = ?`);
    params.push(filters.outcome);
  }
  if (filters.relatedSkill !== undefined) {
    // related_skills is a JSON array of ids; the quoted id is matched as a whole element.
    clauses.push(`${alias}.related_skills LIKE ? ESCAPE '\\'`);
    params.push(`%${JSON.stringify(filters.relatedSkill).replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  }
  return { sql: clauses.map((c) => ` AND ${c}`).join(''), params };
}

/** The predicate of "publicly visible": search, learnings_count and contributor stats all use it. */
export const VISIBLE = "status = 'approved'";

/** SQL for the learnings table. */
export const learningsStore = {
  async insert(q: Queryable, learning: NewLearning): Promise<void> {
    const cols = COLUMNS.filter(([f]) => f in learning);
    const values = cols.map(([f, , json]) => {
      const v = learning[f as keyof NewLearning];
      return json && v !== null ? JSON.stringify(v) : v;
    });
    await q.run(
      `INSERT INTO learnings (${cols.map(([, c]) => c).join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`,
      values,
    );
  },

  async byId(q: Queryable, id: string): Promise<LearningRecord | undefined> {
    const row = await q.get<Record<string, unknown>>(`SELECT ${SELECT} FROM learnings WHERE id = ?`, [id]);
    return row && decode(row);
  },

  /**
   * The learning, its demand, and when a POST /knowledge search last showed it to `accountId` (null: none
   * asked or never): what an unlock reads, in one statement.
   */
  async forUnlock(
    q: Queryable,
    id: string,
    accountId: string | null,
    now: number,
  ): Promise<{ learning: LearningRecord; demand: Demand; surfacedAt: number | null } | undefined> {
    const today = dayOf(now);
    const row = await q.get<Record<string, unknown>>(
      `SELECT ${SELECT},
         (SELECT surfaced_at FROM learning_surfaced s WHERE s.account_id = ? AND s.learning_id = learnings.id) AS "surfacedAt",
         d.i7, d.i30, d.u7, d.u30
       FROM learnings LEFT JOIN (
         SELECT learning_id,
           SUM(CASE WHEN day > ? THEN impressions ELSE 0 END) AS i7, SUM(impressions) AS i30,
           SUM(CASE WHEN day > ? THEN unlocks ELSE 0 END) AS u7, SUM(unlocks) AS u30
         FROM learning_demand WHERE learning_id = ? AND day > ? GROUP BY learning_id
       ) d ON d.learning_id = learnings.id
       WHERE learnings.id = ?`,
      [accountId, today - 7, today - 7, id, today - 30, id],
    );
    if (!row) return undefined;
    const { surfacedAt, i7, i30, u7, u30, ...learning } = row as Record<string, number | null>;
    return {
      learning: decode(learning),
      demand: { impressions7d: i7 ?? 0, impressions30d: i30 ?? 0, unlocks7d: u7 ?? 0, unlocks30d: u30 ?? 0 },
      surfacedAt: surfacedAt ?? null,
    };
  },

  async anyVisible(q: Queryable): Promise<boolean> {
    return (await q.get(`SELECT 1 FROM learnings WHERE ${VISIBLE} LIMIT 1`)) !== undefined;
  },

  async countVisible(q: Queryable): Promise<number> {
    const row = await q.get<{ n: number }>(`SELECT COUNT(*) AS n FROM learnings WHERE ${VISIBLE}`);
    return row?.n ?? 0;
  },

  /** Visible learnings per category; categories without any are absent. */
  async countByCategory(q: Queryable): Promise<Record<string, number>> {
    const rows = await q.all<{ category: string; n: number }>(
      `SELECT category, COUNT(*) AS n FROM learnings WHERE ${VISIBLE} GROUP BY category ORDER BY category`,
    );
    return Object.fromEntries(rows.map((r) => [r.category, r.n]));
  },

  /** The next seq (inside the inserting transaction, whose write lock makes it unique). */
  async nextSeq(q: Queryable): Promise<number> {
    const row = await q.get<{ n: number | null }>('SELECT MAX(seq) AS n FROM learnings');
    return (row?.n ?? 0) + 1;
  },

  /** Learnings of these ids, any status. */
  async byIds(q: Queryable, ids: readonly string[]): Promise<LearningRecord[]> {
    if (ids.length === 0) return [];
    const rows = await q.all<Record<string, unknown>>(
      `SELECT ${SELECT} FROM learnings WHERE id IN (${ids.map(() => '?').join(', ')})`,
      ids,
    );
    return rows.map(decode);
  },

  /** Visible learnings of these ids, in the order given. */
  async visibleByIds(q: Queryable, ids: readonly string[]): Promise<LearningRecord[]> {
    if (ids.length === 0) return [];
    // Looked up by primary key and filtered here: with the status in the WHERE clause SQLite chose the
    // status index and read every approved row.
    const rows = await q.all<Record<string, unknown>>(
      `SELECT ${SELECT} FROM learnings WHERE id IN (${ids.map(() => '?').join(', ')})`,
      ids,
    );
    const byId = new Map(rows.filter((r) => r.status === 'approved').map((r) => [r.id as string, decode(r)]));
    return ids.map((id) => byId.get(id)).filter((r) => r !== undefined);
  },

  /** What ranking reads of visible learnings of these ids (quality and age, not the text), in the order given. */
  async rankingFieldsByIds(q: Queryable, ids: readonly string[]): Promise<RankingFields[]> {
    if (ids.length === 0) return [];
    // By primary key and filtered here, as in visibleByIds.
    const rows = await q.all<RankingFields & { status: string }>(
      `SELECT id, status, avg_helpfulness AS "avgHelpfulness", rating_count AS "ratingCount", quality_score AS "qualityScore",
         published_at AS "publishedAt", created_at AS "createdAt"
       FROM learnings WHERE id IN (${ids.map(() => '?').join(', ')})`,
      ids,
    );
    const byId = new Map(rows.filter((r) => r.status === 'approved').map(({ status: _, ...r }) => [r.id, r]));
    return ids.map((id) => byId.get(id)).filter((r) => r !== undefined);
  },

  /** An approved or held learning with this content hash (rejected and retracted ones do not block). */
  async liveByContentHash(q: Queryable, hash: string): Promise<string | undefined> {
    const row = await q.get<{ id: string }>(
      "SELECT id FROM learnings WHERE content_hash = ? AND status IN ('approved', 'pending_review') LIMIT 1",
      [hash],
    );
    return row?.id;
  },

  async addBandKeys(q: Queryable, learningId: string, keys: readonly string[]): Promise<void> {
    for (let i = 0; i < keys.length; i += 100) {
      const part = keys.slice(i, i + 100);
      await q.run(
        `INSERT INTO learning_lsh (band_key, learning_id) VALUES ${part.map(() => '(?, ?)').join(', ')} ON CONFLICT DO NOTHING`,
        part.flatMap((k) => [k, learningId]),
      );
    }
  },

  /** A learning's band keys, replacing the ones it had. */
  async replaceBandKeys(q: Queryable, learningId: string, keys: readonly string[]): Promise<void> {
    await q.run('DELETE FROM learning_lsh WHERE learning_id = ?', [learningId]);
    await learningsStore.addBandKeys(q, learningId, keys);
  },

  /** Where the rebuild of band keys stands: the last learning id done ('' before the first); undefined once done. */
  async bandKeysRebuildAfter(q: Queryable): Promise<string | undefined> {
    return (await q.get<{ value: string }>('SELECT value FROM meta WHERE key = ?', [BAND_KEYS_REBUILD]))?.value;
  },

  /** Records the rebuild's progress ('' starts one); undefined: done. */
  async setBandKeysRebuildAfter(q: Queryable, after: string | undefined): Promise<void> {
    if (after === undefined) await q.run('DELETE FROM meta WHERE key = ?', [BAND_KEYS_REBUILD]);
    else
      await q.run(
        'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
        [BAND_KEYS_REBUILD, after],
      );
  },

  /** The texts of up to `limit` learnings (any status) with ids after `after`, in id order. */
  async textsAfter(
    q: Queryable,
    after: string,
    limit: number,
  ): Promise<Array<Pick<LearningRecord, 'id' | 'title' | 'body'>>> {
    return q.all('SELECT id, title, body FROM learnings WHERE id > ? ORDER BY id LIMIT ?', [after, limit]);
  },

  /**
   * Approved or held learnings sharing at least one LSH band key, most shared keys first, at most
   * `limit`, with the text near-duplicate checks compare.
   */
  async bandCandidates(
    q: Queryable,
    keys: readonly string[],
    limit: number,
  ): Promise<Array<Pick<LearningRecord, 'id' | 'title' | 'body' | 'category'>>> {
    if (keys.length === 0) return [];
    return q.all(
      `SELECT l.id, l.title, l.body, l.category FROM (
         SELECT learning_id, COUNT(*) AS shared FROM learning_lsh WHERE band_key IN (${keys.map(() => '?').join(', ')})
         GROUP BY learning_id ORDER BY shared DESC LIMIT ?
       ) c JOIN learnings l ON l.id = c.learning_id
       WHERE l.status IN ('approved', 'pending_review') ORDER BY c.shared DESC`,
      [...keys, limit],
    );
  },

  /** Learnings the account has published (approved now or retracted since). */
  async countPublishedBy(q: Queryable, accountId: string): Promise<number> {
    const row = await q.get<{ n: number }>(
      'SELECT COUNT(*) AS n FROM learnings WHERE contributor_account_id = ? AND published_at IS NOT NULL',
      [accountId],
    );
    return row?.n ?? 0;
  },

  /** Moves a learning to `status`; approval sets published_at once (the schema's triggers keep the full-text index). */
  async setStatus(
    q: Queryable,
    l: Pick<LearningRecord, 'id' | 'status' | 'publishedAt'>,
    status: LearningRecord['status'],
    reviewReason: string[] | null,
    now: number,
  ): Promise<void> {
    const publishedAt = status === 'approved' ? (l.publishedAt ?? now) : l.publishedAt;
    await q.run('UPDATE learnings SET status = ?, review_reason = ?, published_at = ?, updated_at = ? WHERE id = ?', [
      status,
      reviewReason && reviewReason.length > 0 ? JSON.stringify(reviewReason) : null,
      publishedAt,
      now,
      l.id,
    ]);
  },

  /** Ids of visible learnings passing the filters, or null with no filters (everything visible passes). */
  async idsMatching(q: Queryable, filters: LearningFilters): Promise<Set<string> | null> {
    const { sql, params } = learningFilterSql(filters, 'l');
    if (!sql) return null;
    const rows = await q.all<{ id: string }>(`SELECT l.id FROM learnings l WHERE l.${VISIBLE}${sql}`, params);
    return new Set(rows.map((r) => r.id));
  },

  /** Search and unlock demand of each learning over the last 7 and 30 days (by UTC day). */
  async demand(q: Queryable, ids: readonly string[], now: number): Promise<Map<string, Demand>> {
    const out = new Map<string, Demand>(
      ids.map((id) => [id, { impressions7d: 0, impressions30d: 0, unlocks7d: 0, unlocks30d: 0 }]),
    );
    if (ids.length === 0) return out;
    const today = dayOf(now);
    const rows = await q.all<{ id: string; i7: number; i30: number; u7: number; u30: number }>(
      `SELECT learning_id AS id,
         SUM(CASE WHEN day > ? THEN impressions ELSE 0 END) AS i7, SUM(impressions) AS i30,
         SUM(CASE WHEN day > ? THEN unlocks ELSE 0 END) AS u7, SUM(unlocks) AS u30
       FROM learning_demand WHERE day > ? AND learning_id IN (${ids.map(() => '?').join(', ')}) GROUP BY learning_id`,
      [today - 7, today - 7, today - 30, ...ids],
    );
    for (const r of rows)
      out.set(r.id, { impressions7d: r.i7, impressions30d: r.i30, unlocks7d: r.u7, unlocks30d: r.u30 });
    return out;
  },

  /** One search impression for each learning; with an account, also that the search showed them to it. */
  async recordImpressions(q: Queryable, ids: readonly string[], accountId: string | null, now: number): Promise<void> {
    if (ids.length === 0) return;
    const day = dayOf(now);
    await q.run(
      `INSERT INTO learning_demand (learning_id, day, impressions) VALUES ${ids.map(() => '(?, ?, 1)').join(', ')}
       ON CONFLICT (learning_id, day) DO UPDATE SET impressions = learning_demand.impressions + 1`,
      ids.flatMap((id) => [id, day]),
    );
    if (accountId)
      await q.run(
        `INSERT INTO learning_surfaced (account_id, learning_id, surfaced_at) VALUES ${ids.map(() => '(?, ?, ?)').join(', ')}
         ON CONFLICT (account_id, learning_id) DO UPDATE SET surfaced_at = excluded.surfaced_at`,
        ids.flatMap((id) => [accountId, id, now]),
      );
  },

  /** One unlock in the learning's demand (the unlock service calls it inside its ledger transaction). */
  async recordUnlock(q: Queryable, id: string, now: number): Promise<void> {
    await q.run(
      `INSERT INTO learning_demand (learning_id, day, unlocks) VALUES (?, ?, 1)
       ON CONFLICT (learning_id, day) DO UPDATE SET unlocks = learning_demand.unlocks + 1`,
      [id, dayOf(now)],
    );
  },

  /** Stores the learning's current price (the one price everything reads); true when it changed. */
  async reprice(q: Queryable, id: string, priceMicro: number, now: number): Promise<boolean> {
    const r = await q.run(
      `UPDATE learnings SET prior_price_micro = current_price_micro, current_price_micro = ?, last_repriced_at = ?
       WHERE id = ? AND current_price_micro <> ?`,
      [priceMicro, now, id, priceMicro],
    );
    return r.changes === 1;
  },

  /** Sets the account's rating slot; true when it replaced an earlier rating. Recomputes the learning's rating totals. */
  async rate(
    q: Queryable,
    learningId: string,
    accountId: string,
    helpfulness: number,
    notes: string | null,
    now: number,
  ): Promise<boolean> {
    const before = await q.get('SELECT 1 AS x FROM learning_ratings WHERE learning_id = ? AND account_id = ?', [
      learningId,
      accountId,
    ]);
    await q.run(
      `INSERT INTO learning_ratings (learning_id, account_id, helpfulness, notes, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (learning_id, account_id) DO UPDATE SET helpfulness = excluded.helpfulness, notes = excluded.notes, updated_at = excluded.updated_at`,
      [learningId, accountId, helpfulness, notes, now, now],
    );
    await q.run(
      `UPDATE learnings SET
         rating_count = (SELECT COUNT(*) FROM learning_ratings WHERE learning_id = ?),
         avg_helpfulness = (SELECT COALESCE(AVG(helpfulness), 0) FROM learning_ratings WHERE learning_id = ?),
         updated_at = ?
       WHERE id = ?`,
      [learningId, learningId, now, learningId],
    );
    return before !== undefined;
  },

  /** Individual helpfulness ratings, one per rater slot, oldest first. */
  async helpfulnessScores(q: Queryable, learningId: string): Promise<number[]> {
    const rows = await q.all<{ h: number }>(
      'SELECT helpfulness AS h FROM learning_ratings WHERE learning_id = ? ORDER BY created_at, account_id',
      [learningId],
    );
    return rows.map((r) => r.h);
  },

  /** The account's held learnings, newest first. */
  async pendingOf(q: Queryable, accountId: string, limit: number, offset: number): Promise<LearningRecord[]> {
    const rows = await q.all<Record<string, unknown>>(
      `SELECT ${SELECT} FROM learnings WHERE contributor_account_id = ? AND status = 'pending_review' ORDER BY created_at DESC, id LIMIT ? OFFSET ?`,
      [accountId, limit, offset],
    );
    return rows.map(decode);
  },

  async countPendingOf(q: Queryable, accountId: string): Promise<number> {
    const row = await q.get<{ n: number }>(
      "SELECT COUNT(*) AS n FROM learnings WHERE contributor_account_id = ? AND status = 'pending_review'",
      [accountId],
    );
    return row?.n ?? 0;
  },

  /** What the review summary needs of every held item of the account (no bodies), newest first. */
  async pendingTriageOf(q: Queryable, accountId: string, max: number): Promise<PendingTriage[]> {
    const rows = await q.all<Record<string, unknown>>(
      `SELECT id, title, category, created_at AS "createdAt", review_reason AS "reviewReason", quality_dimensions AS "qualityDimensions"
       FROM learnings WHERE contributor_account_id = ? AND status = 'pending_review' ORDER BY created_at DESC, id LIMIT ?`,
      [accountId, max],
    );
    return rows.map((r) => decode(r) as unknown as PendingTriage);
  },

  /** Held items awaiting platform review (forced_review), oldest first. */
  async platformQueue(q: Queryable, limit: number, offset: number): Promise<{ total: number; rows: LearningRecord[] }> {
    const where = `status = 'pending_review' AND review_reason LIKE '%"forced_review"%'`;
    const [count, rows] = await Promise.all([
      q.get<{ n: number }>(`SELECT COUNT(*) AS n FROM learnings WHERE ${where}`),
      q.all<Record<string, unknown>>(
        `SELECT ${SELECT} FROM learnings WHERE ${where} ORDER BY created_at, id LIMIT ? OFFSET ?`,
        [limit, offset],
      ),
    ]);
    return { total: count?.n ?? 0, rows: rows.map(decode) };
  },

  /** Totals over visible learnings (GET /knowledge/stats). */
  async stats(
    q: Queryable,
  ): Promise<{ count: number; unlocks: number; ratings: number; grossMicro: number; contributors: number }> {
    const row = await q.get<{ count: number; unlocks: number; ratings: number; gross: number; contributors: number }>(
      `SELECT COUNT(*) AS count, COALESCE(SUM(unlock_count), 0) AS unlocks, COALESCE(SUM(rating_count), 0) AS ratings,
         COALESCE(SUM(gross_micro), 0) AS gross,
         COUNT(DISTINCT COALESCE(contributor_account_id, contributor_wallet)) AS contributors
       FROM learnings WHERE ${VISIBLE}`,
    );
    return {
      count: row?.count ?? 0,
      unlocks: row?.unlocks ?? 0,
      ratings: row?.ratings ?? 0,
      grossMicro: row?.gross ?? 0,
      contributors: row?.contributors ?? 0,
    };
  },

  /** Visible learnings with the most unlocks (then ratings), at most `limit`. */
  async top(q: Queryable, limit: number): Promise<LearningRecord[]> {
    const rows = await q.all<Record<string, unknown>>(
      `SELECT ${SELECT} FROM learnings WHERE ${VISIBLE} ORDER BY unlock_count DESC, rating_count DESC, created_at DESC LIMIT ?`,
      [limit],
    );
    return rows.map(decode);
  },

  /** Visible learnings attributed to the wallet (case-insensitive): the same predicate as the stats. */
  async countVisibleByWallet(q: Queryable, wallet: string): Promise<number> {
    const row = await q.get<{ n: number }>(
      `SELECT COUNT(*) AS n FROM learnings WHERE ${VISIBLE} AND LOWER(contributor_wallet) = ?`,
      [wallet.toLowerCase()],
    );
    return row?.n ?? 0;
  },

  /** Stores int8 codes and scale of a learning's unit vector. */
  async saveEmbedding(q: Queryable, learningId: string, model: string, codes: Int8Array, scale: number): Promise<void> {
    await q.run('INSERT INTO learning_embeddings (learning_id, model, codes, scale) VALUES (?, ?, ?, ?)', [
      learningId,
      model,
      Buffer.from(codes.buffer, codes.byteOffset, codes.byteLength),
      scale,
    ]);
  },

  /** Vectors stored after row `after`, in order, at most `limit` (each instance loads what it has not seen). */
  async embeddingsAfter(
    q: Queryable,
    model: string,
    after: number,
    limit: number,
  ): Promise<Array<{ row: number; learningId: string; codes: Buffer; scale: number }>> {
    const rows = await q.all<{ id: number; learning_id: string; codes: Buffer; scale: number }>(
      'SELECT id, learning_id, codes, scale FROM learning_embeddings WHERE id > ? AND model = ? ORDER BY id LIMIT ?',
      [after, model, limit],
    );
    return rows.map((r) => ({ row: r.id, learningId: r.learning_id, codes: r.codes, scale: r.scale }));
  },

  /** Visible learnings without a vector for `model`, at most `limit`. */
  async missingEmbeddings(
    q: Queryable,
    model: string,
    limit: number,
  ): Promise<Array<Pick<LearningRecord, 'id' | 'title' | 'body' | 'tags' | 'category'>>> {
    const rows = await q.all<Record<string, unknown>>(
      `SELECT id, title, body, tags, category FROM learnings l WHERE ${VISIBLE}
       AND NOT EXISTS (SELECT 1 FROM learning_embeddings e WHERE e.learning_id = l.id AND e.model = ?) LIMIT ?`,
      [model, limit],
    );
    return rows.map((r) => decode(r) as unknown as Pick<LearningRecord, 'id' | 'title' | 'body' | 'tags' | 'category'>);
  },
};
