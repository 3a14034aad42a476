import type { LEARNING_STATUSES, SUBMISSION_CHANNELS } from '@axle/sdk';
import type { Queryable } from './db.js';

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
  unlockPriceMicro: number;
  basePriceMicro: number;
  currentPriceMicro: number;
  overridePriceMicro: number | null;
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
  injectionFlags: string[] | null;
  possibleDuplicateOf: string | null;
  possibleDuplicateSimilarity: number | null;
  publishedAt: number | null;
  createdAt: number;
  updatedAt: number;
}

/** Fields a new submission must supply; counters and totals start at zero. */
export type NewLearning = Omit<
  LearningRecord,
  'unlockCount' | 'ratingCount' | 'avgHelpfulness' | 'grossMicro' | 'contributorMicro' | 'platformMicro'
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
  ['unlockPriceMicro', 'unlock_price_micro'],
  ['basePriceMicro', 'base_price_micro'],
  ['currentPriceMicro', 'current_price_micro'],
  ['overridePriceMicro', 'override_price_micro'],
  ['complexity', 'complexity'],
  ['lastRepricedAt', 'last_repriced_at'],
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
];
const SELECT = COLUMNS.map(([f, c]) => (f === c ? c : `${c} AS "${f}"`)).join(', ');
const JSON_FIELDS = COLUMNS.filter(([, , json]) => json).map(([f]) => f);

function decode(row: Record<string, unknown>): LearningRecord {
  for (const f of JSON_FIELDS) if (typeof row[f] === 'string') row[f] = JSON.parse(row[f] as string);
  return row as unknown as LearningRecord;
}

/** The predicate of "publicly visible": search, catalog_size and contributor stats all use it. */
const VISIBLE = "status = 'approved'";

/** SQL for the learnings table. */
export const learningsStore = {
  async insert(q: Queryable, learning: NewLearning): Promise<void> {
    const cols = COLUMNS.filter(([f]) => f in learning);
    const values = cols.map(([f, , json]) => {
      const v = learning[f as keyof NewLearning];
      return json && v !== null ? JSON.stringify(v) : v;
    });
    await q.run(`INSERT INTO learnings (${cols.map(([, c]) => c).join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`, values);
  },

  async byId(q: Queryable, id: string): Promise<LearningRecord | undefined> {
    const row = await q.get<Record<string, unknown>>(`SELECT ${SELECT} FROM learnings WHERE id = ?`, [id]);
    return row && decode(row);
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
};
