import {
  ApproveCleanRequest,
  ApproveCleanResponse,
  ApproveRequest,
  BulkReviewRequest,
  BulkReviewResponse,
  LearningIdParams,
  PendingList,
  PendingListQuery,
  PendingSummary,
  PendingSummaryQuery,
  ReviewResult,
  z,
} from '@axle/sdk';
import type { AppDeps } from '../deps.js';
import type { Api } from '../http/route.js';

const OWNER_ERRORS = {
  401: { description: 'Missing or invalid credentials' },
  403: { description: 'API key without the contribute scope' },
} as const;

const APPROVER_ERRORS = {
  ...OWNER_ERRORS,
  403: { description: 'API key without the contribute scope, or a suspended account (account_suspended)' },
} as const;

/** The contributor's review queue (/account/pending…) and the platform's (/admin/review…). */
export function reviewRoutes(api: Api, deps: AppDeps): void {
  const { identity, review } = deps;
  const owner = [identity.requireJwtOrKey()];
  /** Publishing is acting: a suspended account may read and withdraw its queue, not approve from it. */
  const publishing = [...owner, identity.requireActiveAccount()];
  const me = (ctx: { state: { identity?: { accountId: string } } }) => ctx.state.identity!.accountId;

  api.route({
    method: 'get',
    path: '/account/pending',
    operationId: 'listPendingLearnings',
    summary: 'Your held learnings',
    tags: ['Review'],
    security: ['ApiKey', 'BearerJWT'],
    before: owner,
    query: PendingListQuery,
    responses: {
      200: { description: 'A page of held items, newest first', schema: PendingList },
      400: { description: 'Bad paging' },
      ...OWNER_ERRORS,
    },
    handler: ({ query }, ctx) => review.list(me(ctx), query.limit, query.offset),
  });

  api.route({
    method: 'get',
    path: '/account/pending/summary',
    operationId: 'getPendingSummary',
    summary: 'Triage summary of your held learnings',
    description:
      'Counts (lanes, flags, approvable_count) cover the whole own-pending set; lane, flag, ids and paging narrow the rows only. ' +
      'full=1 attaches bodies, for explicit ids or a page of at most 25 rows (a larger limit is lowered to 25).',
    tags: ['Review'],
    security: ['ApiKey', 'BearerJWT'],
    before: owner,
    query: PendingSummaryQuery,
    responses: {
      200: { description: 'Summary', schema: PendingSummary },
      400: { description: 'Bad filter, paging or more than 100 ids' },
      ...OWNER_ERRORS,
    },
    handler: ({ query }, ctx) => review.summary(me(ctx), query),
  });

  api.route({
    method: 'post',
    path: '/account/pending/approve-clean',
    operationId: 'approveCleanPendingLearnings',
    summary: 'Approve every clean held item at or above a quality threshold',
    description:
      'Selects held items with no screen flag, no reason that needs a per-item decision (forced_review, sanitized_resubmission, ' +
      `below_quality_floor, awaiting_quality) and a quality score at or above threshold; dry_run (default true) only lists them. At most 100 per call.`,
    tags: ['Review'],
    security: ['ApiKey', 'BearerJWT'],
    before: publishing,
    body: ApproveCleanRequest,
    responses: {
      200: { description: 'Selected (and, unless a dry run, approved)', schema: ApproveCleanResponse },
      400: { description: 'Bad threshold' },
      ...APPROVER_ERRORS,
    },
    handler: ({ body }, ctx) => review.approveClean(me(ctx), body.dry_run, body.threshold),
  });

  for (const action of ['approve', 'reject'] as const) {
    api.route({
      method: 'post',
      path: `/account/pending/${action}`,
      operationId: action === 'approve' ? 'approvePendingLearnings' : 'rejectPendingLearnings',
      summary: `${action === 'approve' ? 'Approve' : 'Reject'} several of your held learnings`,
      description: 'At most 100 ids; each is decided on its own and answered with a result.',
      tags: ['Review'],
      security: ['ApiKey', 'BearerJWT'],
      before: action === 'approve' ? publishing : owner,
      body: BulkReviewRequest,
      responses: {
        200: { description: 'A result per id', schema: BulkReviewResponse },
        400: { description: 'Bad ids' },
        ...(action === 'approve' ? APPROVER_ERRORS : OWNER_ERRORS),
      },
      handler: ({ body }, ctx) =>
        action === 'approve'
          ? review.approveMany(me(ctx), body.ids, body.acknowledge_flags === true)
          : review.rejectMany(me(ctx), body.ids),
    });

    api.route({
      method: 'post',
      path: `/account/pending/{id}/${action}`,
      operationId: action === 'approve' ? 'approvePendingLearning' : 'rejectPendingLearning',
      summary: `${action === 'approve' ? 'Approve' : 'Reject'} one of your held learnings`,
      description:
        action === 'approve'
          ? 'A flagged item needs acknowledge_flags: true (409 flags_not_acknowledged otherwise). An item also awaiting platform review stays held with forced_review.'
          : 'A rejected learning stays private.',
      tags: ['Review'],
      security: ['ApiKey', 'BearerJWT'],
      before: action === 'approve' ? publishing : owner,
      params: LearningIdParams,
      ...(action === 'approve' ? { body: ApproveRequest } : {}),
      responses: {
        200: { description: 'Decided', schema: ReviewResult },
        ...(action === 'approve' ? APPROVER_ERRORS : OWNER_ERRORS),
        404: { description: 'No such held learning of yours' },
        409: { description: 'Not held, or flagged and not acknowledged' },
      },
      handler: ({ params, body }, ctx) =>
        action === 'approve'
          ? review.approve(
              { kind: 'owner', accountId: me(ctx) },
              params.id,
              (body as { acknowledge_flags?: boolean } | undefined)?.acknowledge_flags === true,
            )
          : review.reject({ kind: 'owner', accountId: me(ctx) }, params.id),
    });

    api.route({
      method: 'post',
      path: `/admin/review/{id}/${action}`,
      operationId: action === 'approve' ? 'approvePlatformReview' : 'rejectPlatformReview',
      summary: `Platform review: ${action} a learning held for forced_review`,
      tags: ['Admin'],
      security: ['AdminToken'],
      before: [identity.requireAdmin('admin')],
      params: LearningIdParams,
      ...(action === 'approve' ? { body: ApproveRequest } : {}),
      responses: {
        200: { description: 'Decided; contributor reasons may still hold it', schema: ReviewResult },
        401: { description: 'Missing or invalid admin token' },
        403: { description: 'Read-only admin token' },
        404: { description: 'No learning awaiting platform review with this id' },
        409: { description: 'Not held, or flagged and not acknowledged' },
      },
      handler: ({ params, body }) =>
        action === 'approve'
          ? review.approve(
              { kind: 'platform' },
              params.id,
              (body as { acknowledge_flags?: boolean } | undefined)?.acknowledge_flags === true,
            )
          : review.reject({ kind: 'platform' }, params.id),
    });
  }

  api.route({
    method: 'get',
    path: '/admin/review',
    operationId: 'listPlatformReview',
    summary: 'Platform review queue (forced_review), oldest first',
    tags: ['Admin'],
    security: ['AdminToken'],
    before: [identity.requireAdmin('read')],
    query: PendingListQuery,
    responses: {
      200: {
        description: 'Held items awaiting platform review',
        schema: z.object({
          pending_count: z.number().int(),
          limit: z.number().int(),
          offset: z.number().int(),
          learnings: PendingList.shape.learnings,
        }),
      },
      401: { description: 'Missing or invalid admin token' },
    },
    handler: ({ query }) => review.platformQueue(query.limit, query.offset),
  });
}
