import {
  CategoryOutOfScope,
  DuplicateLearning,
  LearningIdParams,
  LearnRequest,
  LearnResponse,
  RetractQuery,
  RetractResponse,
  z,
} from '@axle/sdk';
import type { AppDeps } from '../deps.js';
import type { Api } from '../http/route.js';

/** POST /learn and DELETE /learn/{id}. */
export function learnRoutes(api: Api, deps: AppDeps): void {
  const { identity, learn, review } = deps;

  api.route({
    method: 'post',
    path: '/learn',
    operationId: 'submitLearning',
    summary: 'Contribute a learning',
    description:
      'Identity: an API key (contribute scope), a session token, or a verified contributor_wallet. With a ' +
      'key or token the learning belongs to that account (even when the body names a contributor_wallet, ' +
      "which is then payout attribution only), and a key's name is stored as contributor_key_label. " +
      'Without either, contributor_wallet is the identity: it must have passed POST /wallet/challenge + ' +
      'POST /wallet/verify within the last 30 days (else 401). Such a learning is attributed to the wallet ' +
      'and owned by the account the wallet is linked to (self-review); it always waits for platform review ' +
      "(forced_review) and cannot use replaces, since naming a wallet proves nothing. An unlinked wallet's learning has " +
      'no owning account, and the platform review decides' +
      ' all its reasons. Screens (credentials and personal data, prompt injection, content sensitivity, ' +
      'process advice) hold a learning with a review_reason per flag; credentials and personal data are ' +
      'stored only redacted. An exact duplicate, or a near-duplicate (shingle Jaccard >= 0.85) in the same ' +
      "category, is refused with 409; 0.60..0.85 is held (near_duplicate). A contributor's first published" +
      ' learning, and every learning while AXLE_FORCED_REVIEW is on, waits for platform review ' +
      '(forced_review). On the extraction channel an item publishes itself only with clean-lane consent ' +
      '(consent granted, mode automatic) and a quality score at or above the account ' +
      'auto_publish_threshold. Per account and per wallet (a wallet-identified one spends only its own): at most 20 ' +
      'submissions a minute and 100 an hour (429); a submission refused after its screens ran (409 duplicate or ' +
      'near-duplicate, 404 replaces) counts too. Nothing is stored when the request is refused. Send an ' +
      'Idempotency-Key header to retry safely: for 24 hours a retry with the same key and body gets the first ' +
      "request's answer (nothing stored again, no limit spent), and the same key with another body 409.",
    tags: ['Knowledge'],
    security: ['ApiKey', 'BearerJWT'],
    before: [identity.optionalJwtOrKey(), identity.activeAccountIfAny()],
    body: LearnRequest,
    headers: z.object({ 'Idempotency-Key': z.string().max(255).optional() }),
    responses: {
      201: {
        description: 'Stored: approved (discoverable) or pending_review (held, see review_reason)',
        schema: LearnResponse,
      },
      400: {
        description: 'Validation failure, or CATEGORY_OUT_OF_SCOPE (communication, content-generation)',
        schema: CategoryOutOfScope,
      },
      401: { description: 'No identity: an API key, a session token or a verified contributor_wallet is required' },
      403: {
        description: 'Key without the contribute scope, or a suspended account (also the one a wallet is linked to)',
      },
      404: { description: 'replaces names no held or rejected learning of yours (or the identity is a wallet claim)' },
      409: {
        description:
          'Duplicate learning detected, Near-duplicate learning detected (existing_id, similarity), or an ' +
          'Idempotency-Key used for another learning (conflict)',
        schema: DuplicateLearning,
      },
      429: { description: 'Per-account submission limit' },
    },
    handler: ({ body }, ctx) => {
      const id = ctx.state.identity;
      return learn.submit(
        id && { accountId: id.accountId, keyId: id.keyId },
        body,
        ctx.get('idempotency-key') || undefined,
      );
    },
  });

  api.route({
    method: 'delete',
    path: '/learn/{id}',
    operationId: 'retractLearning',
    summary: 'Retract your published learning (within 7 days)',
    description:
      'reason must be retract. The learning leaves the catalog; the retraction is audit-logged (audit_ref). After 7 days: 409.',
    tags: ['Knowledge'],
    security: ['BearerJWT', 'ApiKey'],
    before: [identity.requireJwtOrKey()],
    params: LearningIdParams,
    query: RetractQuery,
    responses: {
      200: { description: 'Retracted', schema: RetractResponse },
      400: { description: 'reason is not retract' },
      401: { description: 'Missing or invalid credentials' },
      403: { description: 'Not the contributor of this published learning' },
      404: { description: "No such learning, or another account's learning that is not published" },
      409: { description: 'Retraction window (7 days) expired, or the learning is not published' },
      429: { description: 'Per-account retraction limit (10 a minute, 30 an hour)' },
    },
    handler: ({ params, query }, ctx) => review.retract(ctx.state.identity!.accountId, params.id, query.reason),
  });
}
