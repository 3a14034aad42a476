import {
  type ApproveCleanResponse,
  type BulkReviewResponse,
  DEFAULT_AUTO_PUBLISH_THRESHOLD,
  ERROR_CODES,
  LIMITS,
  type PendingItem,
  type PendingList,
  type PendingSummary,
  type RetractResponse,
  type ReviewResult,
} from '@axle/sdk';
import type { Clock } from '../clock.js';
import { DomainError } from '../domain/errors.js';
import { consentStore } from '../store/consent.js';
import type { Queryable, Transactor } from '../store/queryable.js';
import { type LearningRecord, learningsStore } from '../store/learnings.js';
import { appendAudit } from './audit.js';
import { flagsOf, isoTime, laneOf, scoreOf, toPendingItem } from './learning-view.js';
import type { AccountWriteLimiter } from './account-write-limits.js';

const DAY_MS = 86_400_000;
/** Held items the summary reads per account; the per-account POST /learn limit keeps queues far below it. */
export const MAX_TRIAGE_ROWS = 10_000;
/** Items approve-clean publishes per call (the rest remain for the next call). */
export const APPROVE_CLEAN_MAX = 100;
/** Reasons only the contributor's explicit, per-item decision lifts: approve-clean leaves these items alone. */
const EXPLICIT_ONLY = new Set(['forced_review', 'sanitized_resubmission', 'below_quality_floor', 'awaiting_quality']);

export type Reviewer = { kind: 'owner'; accountId: string } | { kind: 'platform' };

export interface PendingSummaryQuery {
  lane?: PendingItem['lane'];
  flag?: PendingSummary['rows'][number]['flags'][number];
  limit: number;
  offset: number;
  full?: '0' | '1';
  ids?: string;
}

export interface ReviewService {
  list(accountId: string, limit: number, offset: number): Promise<PendingList>;
  summary(accountId: string, query: PendingSummaryQuery): Promise<PendingSummary>;
  /**
   * Approves one held item: the owner lifts every reason but forced_review, the platform lifts forced_review
   * (and every reason of an ownerless, wallet-only learning).
   */
  approve(who: Reviewer, id: string, acknowledgeFlags: boolean): Promise<ReviewResult>;
  reject(who: Reviewer, id: string): Promise<ReviewResult>;
  /** Bulk forms: a result per id, each decided on its own. */
  approveMany(accountId: string, ids: string[], acknowledgeFlags: boolean): Promise<BulkReviewResponse>;
  rejectMany(accountId: string, ids: string[]): Promise<BulkReviewResponse>;
  approveClean(accountId: string, dryRun: boolean, threshold?: number): Promise<ApproveCleanResponse>;
  /** Items awaiting platform review (forced_review), oldest first. */
  platformQueue(
    limit: number,
    offset: number,
  ): Promise<{ pending_count: number; limit: number; offset: number; learnings: PendingItem[] }>;
  /** DELETE /learn/{id}?reason=retract. */
  retract(accountId: string, id: string, reason: string): Promise<RetractResponse>;
}

export interface ReviewDeps {
  db: Transactor;
  clock: Clock;
  writeLimits: AccountWriteLimiter;
  onVisible?: (id: string) => void;
}

const fail = (id: string, err: unknown): ReviewResult => {
  if (err instanceof DomainError) return { id, ok: false, code: err.code, error: err.message };
  throw err;
};

export function createReviewService({ db, clock, writeLimits, onVisible }: ReviewDeps): ReviewService {
  const thresholdOf = async (q: Queryable, accountId: string) =>
    (await consentStore.autoPublishThreshold(q, accountId)) ?? DEFAULT_AUTO_PUBLISH_THRESHOLD;

  /** The held item `who` may decide on; anything else (absent, someone else's) is 404 without its content. */
  async function held(q: Queryable, who: Reviewer, id: string): Promise<LearningRecord> {
    const l = await learningsStore.byId(q, id);
    const visibleTo =
      l &&
      (who.kind === 'platform' ? l.reviewReason?.includes('forced_review') : l.contributorAccountId === who.accountId);
    if (!l || !visibleTo) throw new DomainError(ERROR_CODES.NOT_FOUND, 'No such held learning', { learning_id: id });
    if (l.status !== 'pending_review')
      throw new DomainError(ERROR_CODES.CONFLICT, `The learning is ${l.status}, not held`, {
        learning_id: id,
        status: l.status,
      });
    return l;
  }

  async function approveIn(
    q: Queryable,
    who: Reviewer,
    id: string,
    acknowledgeFlags: boolean,
    now: number,
  ): Promise<ReviewResult> {
    const l = await held(q, who, id);
    const reasons = l.reviewReason ?? [];
    const flags = flagsOf(reasons);
    if (flags.length > 0 && !acknowledgeFlags)
      throw new DomainError(
        ERROR_CODES.FLAGS_NOT_ACKNOWLEDGED,
        'This item was flagged by a screen: approve it with acknowledge_flags: true',
        {
          learning_id: id,
          flags,
        },
      );
    // An ownerless (wallet-only) learning has no contributor to review it: the platform decides every reason.
    const platformLifts = (r: string) => r === 'forced_review' || l.contributorAccountId === null;
    const remaining =
      who.kind === 'platform' ? reasons.filter((r) => !platformLifts(r)) : reasons.filter((r) => r === 'forced_review');
    // The other party's reasons (the contributor's, or the platform's forced_review) still hold it.
    if (remaining.length > 0) {
      await learningsStore.setStatus(q, l, 'pending_review', remaining, now);
      return { id, ok: true, status: 'pending_review', review_reason: remaining as ReviewResult['review_reason'] };
    }
    await learningsStore.setStatus(q, l, 'approved', null, now);
    return { id, ok: true, status: 'approved' };
  }

  async function rejectIn(q: Queryable, who: Reviewer, id: string, now: number): Promise<ReviewResult> {
    const l = await held(q, who, id);
    await learningsStore.setStatus(q, l, 'rejected', l.reviewReason, now);
    return { id, ok: true, status: 'rejected' };
  }

  const published = (results: ReviewResult[]) => {
    for (const r of results) if (r.ok && r.status === 'approved') onVisible?.(r.id);
  };

  async function bulk(
    ids: string[],
    one: (q: Queryable, id: string, now: number) => Promise<ReviewResult>,
  ): Promise<BulkReviewResponse> {
    const results = await db.tx(async (q) => {
      const now = clock.now();
      const out: ReviewResult[] = [];
      for (const id of [...new Set(ids)]) out.push(await one(q, id, now).catch((err) => fail(id, err)));
      return out;
    });
    published(results);
    const succeeded = results.filter((r) => r.ok).length;
    return { results, succeeded, failed: results.length - succeeded };
  }

  return {
    async list(accountId, limit, offset) {
      const [count, rows, threshold] = await Promise.all([
        learningsStore.countPendingOf(db, accountId),
        learningsStore.pendingOf(db, accountId, limit, offset),
        thresholdOf(db, accountId),
      ]);
      return {
        account_id: accountId,
        pending_count: count,
        limit,
        offset,
        learnings: rows.map((l) => toPendingItem(l, threshold)),
      };
    },

    async summary(accountId, query) {
      const ids = query.ids
        ?.split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      if (ids && ids.length > 100)
        throw new DomainError(ERROR_CODES.VALIDATION, 'ids: at most 100', { field: 'query.ids' });
      const full = query.full === '1';
      // With bodies, a page without explicit ids holds at most 25 rows.
      const limit = full && !ids ? Math.min(query.limit, LIMITS.pendingSummaryFullMax) : query.limit;
      const [all, threshold] = await Promise.all([
        learningsStore.pendingTriageOf(db, accountId, MAX_TRIAGE_ROWS),
        thresholdOf(db, accountId),
      ]);
      const lanes = { ready_to_publish: 0, needs_score: 0, needs_your_eyes: 0 };
      const flags = { injection: 0, content_sensitivity: 0, near_duplicate: 0, process_advice: 0 };
      let approvable = 0;
      const rows = all.map((l) => {
        const f = flagsOf(l.reviewReason);
        const lane = laneOf(l, threshold);
        lanes[lane]++;
        for (const x of f) flags[x]++;
        if (isClean(l, DEFAULT_AUTO_PUBLISH_THRESHOLD)) approvable++;
        return { l, f, lane };
      });
      const wanted = ids ? new Set(ids) : undefined;
      const picked = rows
        .filter(
          (r) =>
            (!wanted || wanted.has(r.l.id)) &&
            (!query.lane || r.lane === query.lane) &&
            (!query.flag || r.f.includes(query.flag)),
        )
        .slice(query.offset, query.offset + limit);
      const bodies = full
        ? new Map(
            (
              await learningsStore.byIds(
                db,
                picked.map((r) => r.l.id),
              )
            ).map((l) => [l.id, l.body]),
          )
        : undefined;
      return {
        account_id: accountId,
        pending_count: all.length,
        lanes,
        flags,
        approvable_count: approvable,
        default_threshold: DEFAULT_AUTO_PUBLISH_THRESHOLD,
        limit,
        offset: query.offset,
        rows: picked.map(({ l, f, lane }) => ({
          id: l.id,
          title: l.title,
          category: l.category as PendingItem['category'],
          created_at: isoTime(l.createdAt),
          lane,
          flags: f,
          review_reason: (l.reviewReason ?? []) as PendingItem['review_reason'],
          quality_score: scoreOf(l.qualityDimensions),
          ...(bodies ? { body: bodies.get(l.id) ?? '' } : {}),
        })),
      };
    },

    async approve(who, id, acknowledgeFlags) {
      const result = await db.tx((q) => approveIn(q, who, id, acknowledgeFlags, clock.now()));
      published([result]);
      return result;
    },

    reject: (who, id) => db.tx((q) => rejectIn(q, who, id, clock.now())),

    approveMany: (accountId, ids, ack) =>
      bulk(ids, (q, id, now) => approveIn(q, { kind: 'owner', accountId }, id, ack, now)),
    rejectMany: (accountId, ids) => bulk(ids, (q, id, now) => rejectIn(q, { kind: 'owner', accountId }, id, now)),

    async approveClean(accountId, dryRun, threshold) {
      const limit = threshold ?? (await thresholdOf(db, accountId));
      const all = await learningsStore.pendingTriageOf(db, accountId, MAX_TRIAGE_ROWS);
      const selected = all.filter((l) => isClean(l, limit)).map((l) => l.id);
      const ids = selected.slice(0, APPROVE_CLEAN_MAX);
      if (dryRun) return { dry_run: true, threshold: limit, selected_count: selected.length, ids, results: [] };
      const { results } = await bulk(ids, (q, id, now) => approveIn(q, { kind: 'owner', accountId }, id, false, now));
      return { dry_run: false, threshold: limit, selected_count: selected.length, ids, results };
    },

    async platformQueue(limit, offset) {
      const { total, rows } = await learningsStore.platformQueue(db, limit, offset);
      return {
        pending_count: total,
        limit,
        offset,
        learnings: rows.map((l) => toPendingItem(l, DEFAULT_AUTO_PUBLISH_THRESHOLD)),
      };
    },

    async retract(accountId, id, reason) {
      if (reason !== 'retract')
        throw new DomainError(ERROR_CODES.VALIDATION, 'reason must be retract', { field: 'query.reason' });
      return db.tx(async (q) => {
        const now = clock.now();
        const l = await learningsStore.byId(q, id);
        // Someone else's learning that is not in the catalog (held, rejected, retracted) is private: answered as an
        // unknown id, so the 403 below does not tell another account that it exists.
        if (!l || (l.contributorAccountId !== accountId && l.status !== 'approved'))
          throw new DomainError(ERROR_CODES.NOT_FOUND, 'Learning not found', { learning_id: id });
        if (l.contributorAccountId !== accountId)
          throw new DomainError(ERROR_CODES.FORBIDDEN, 'Only the contributor can retract a learning');
        if (l.status !== 'approved' || l.publishedAt === null)
          throw new DomainError(
            ERROR_CODES.CONFLICT,
            `The learning is ${l.status}; only a published learning can be retracted`,
            { status: l.status },
          );
        if (now - l.publishedAt > LIMITS.retractionWindowDays * DAY_MS)
          throw new DomainError(
            ERROR_CODES.RETRACTION_WINDOW_EXPIRED,
            'The 7-day retraction window has passed; the standard takedown process applies',
            {
              published_at: isoTime(l.publishedAt),
            },
          );
        await writeLimits.take('retraction', accountId, q);
        await learningsStore.setStatus(q, l, 'retracted', null, now);
        const auditRef = await appendAudit(
          q,
          { actor: `account:${accountId}`, action: 'learning.retracted', subject: id, data: { reason } },
          now,
        );
        return { retracted: true as const, learning_id: id, audit_ref: auditRef };
      });
    },
  };
}

/** What approve-clean selects: no screen flag, no reason only a per-item decision lifts, a score at or above the threshold. */
function isClean(l: Pick<LearningRecord, 'reviewReason' | 'qualityDimensions'>, threshold: number): boolean {
  const reasons = l.reviewReason ?? [];
  if (flagsOf(reasons).length > 0 || reasons.some((r) => EXPLICIT_ONLY.has(r))) return false;
  const score = scoreOf(l.qualityDimensions);
  return score !== null && score >= threshold;
}
