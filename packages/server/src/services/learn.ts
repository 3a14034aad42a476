import {
  DEFAULT_AUTO_PUBLISH_THRESHOLD,
  ERROR_CODES,
  LEARNING_CATEGORIES,
  type LearnRequest,
  type LearnResponse,
  LIMITS,
  type QualitySelfAssessment,
  type REVIEW_REASONS,
  usdToMicro,
  type z,
} from '@axle/sdk';
import type { Clock } from '../clock.js';
import { DomainError } from '../domain/errors.js';
import { newId, sha256Hex } from '../domain/ids.js';
import { meetsFloor, qualityScore01 } from '../domain/quality.js';
import { REVIEW_REASON, screenLearning, withSemanticFlags } from '../domain/screens/index.js';
import { bandKeysOf, contentHash, jaccard, shingles } from '../domain/similarity.js';
import { apiKeysStore } from '../store/api-keys.js';
import { consentStore } from '../store/consent.js';
import type { Queryable, Transactor } from '../store/queryable.js';
import { learnRequestsStore } from '../store/learn-requests.js';
import { type LearningRecord, learningsStore } from '../store/learnings.js';
import { walletKey, walletsStore } from '../store/wallets.js';
import { getAccount } from './accounts.js';
import type { AccountWriteLimiter } from './account-write-limits.js';
import type { SemanticScreens } from './semantic-screens.js';
import { complexityOf, initialPrice } from './learning-view.js';

/** One submission's transaction at a time, across instances (a no-op on SQLite's single writer). */
const SUBMISSION_LOCK = 'axle:learn-submission';

type ReviewReason = (typeof REVIEW_REASONS)[number];
export type LearnInput = z.output<typeof LearnRequest>;

/** Who submits: the account owns the learning; a key's label is stored with it. */
export interface Submitter {
  accountId: string;
  keyId?: string;
}

/**
 * How long a wallet's last POST /wallet/verify makes its contributor_wallet an identity for POST /learn:
 * an agent proves control of the wallet once a month, not once per submission.
 */
export const WALLET_IDENTITY_TTL_MS = 30 * 86_400_000;

/** Whose limits a submission spends and who owns it (null: a wallet-only submission with no linked account). */
interface Owner {
  accountId: string | null;
  keyId?: string;
  limitSubjects: string[];
  /**
   * The identity is the body's contributor_wallet alone. Its verification is on record, but the request carries no
   * proof that its sender controls the wallet, so it can neither publish unreviewed nor use `replaces`.
   */
  byWalletClaim: boolean;
}

/** How long an Idempotency-Key answers with its first answer (SPEC: duplicate keys within 24 hours). */
export const LEARN_REQUEST_TTL_MS = 24 * 3_600_000;
/** Longest Idempotency-Key kept. */
const MAX_REQUEST_KEY = 255;

/** Band-sharing candidates compared exactly per submission. */
const MAX_CANDIDATES = 50;

/**
 * Refusals of a submission once its screens ran: they count against the submission limit like a stored learning
 * (each cost the screens' time), unlike a refusal before the screens or a failure.
 */
const SCREENED_REFUSALS = new Set<string>([
  ERROR_CODES.NOT_FOUND,
  ERROR_CODES.DUPLICATE_LEARNING,
  ERROR_CODES.NEAR_DUPLICATE_LEARNING,
]);

/** Retired learning categories and the answer they get. */
const RETIRED = new Set(['communication', 'content-generation']);

export interface LearnService {
  /**
   * POST /learn: screens, duplicate checks, state and pricing, stored in one transaction (or not at all).
   * Without a submitter the body's contributor_wallet is the identity: it must have been verified within
   * WALLET_IDENTITY_TTL_MS; the account it is linked to owns the learning, else nobody does.
   */
  submit(who: Submitter | undefined, input: LearnInput, requestKey?: string): Promise<LearnResponse>;
}

export interface LearnDeps {
  db: Transactor;
  clock: Clock;
  writeLimits: AccountWriteLimiter;
  /** AXLE_FORCED_REVIEW: every submission waits for platform review. */
  forcedReview: boolean;
  /** Called after a learning became visible (its vector is computed in the background). */
  onVisible?: (id: string) => void;
  /** The semantic side of the screens; without it (or while it cannot run) the regex screens decide alone. */
  semanticScreens?: SemanticScreens;
}

/** The note a learning screened without the semantic side carries, for its reviewer. */
const regexOnlyNote = (reason: string) =>
  `screened by the regex screens only: the semantic screens did not run (${reason})`;

/** The text near-duplicates are measured on. */
export const similarityText = (title: string, body: string): string => `${title}\n${body}`;

const MESSAGES = {
  approved: 'Learning published: it is discoverable through POST /knowledge now.',
  pending_review: 'Learning received and held for review; see review_reason. It is not discoverable until approved.',
} as const;

export function createLearnService(deps: LearnDeps): LearnService {
  const { db, clock, writeLimits, forcedReview, onVisible, semanticScreens } = deps;
  /** Standing consent for the clean lane: consent in force and the extraction mode automatic. */
  async function cleanLaneConsent(q: Queryable, accountId: string): Promise<boolean> {
    const latest = await consentStore.latest(q, accountId);
    return latest?.action === 'grant' && (await consentStore.mode(q, accountId)) === 'automatic';
  }

  /**
   * The owner and limit subjects of a submission; a wallet alone must be verified recently and not be
   * linked to a suspended account.
   */
  async function ownerOf(q: Queryable, who: Submitter | undefined, wallet: string | undefined): Promise<Owner> {
    if (who)
      return { accountId: who.accountId, keyId: who.keyId, limitSubjects: [who.accountId], byWalletClaim: false };
    if (!wallet)
      throw new DomainError(ERROR_CODES.UNAUTHORIZED, 'API key, session token or verified contributor_wallet required');
    const verifiedAt = await walletsStore.verifiedAt(q, wallet);
    if (verifiedAt === undefined || verifiedAt < clock.now() - WALLET_IDENTITY_TTL_MS)
      throw new DomainError(
        ERROR_CODES.UNAUTHORIZED,
        'contributor_wallet is not verified (or its verification is older than 30 days): POST /wallet/challenge, ' +
          'sign it, POST /wallet/verify; or send an API key or session token',
      );
    const linked = await walletsStore.accountIdByWallet(q, wallet);
    if (linked && (await getAccount(q, linked))?.suspended)
      throw new DomainError(ERROR_CODES.ACCOUNT_SUSPENDED, 'Account suspended');
    const walletSubject = `wallet:${walletKey(wallet)}`;
    // Anyone can name the wallet, so its submissions spend the wallet's own quota only: a stranger naming it
    // must not use up the quota its account submits with.
    return { accountId: linked ?? null, limitSubjects: [walletSubject], byWalletClaim: true };
  }

  return {
    async submit(who, input, requestKey) {
      if (requestKey !== undefined && requestKey.length > MAX_REQUEST_KEY)
        throw new DomainError(ERROR_CODES.VALIDATION, `Idempotency-Key must be at most ${MAX_REQUEST_KEY} characters`, {
          field: 'header.Idempotency-Key',
        });
      if (RETIRED.has(input.category)) {
        throw new DomainError(
          ERROR_CODES.CATEGORY_OUT_OF_SCOPE,
          `Category ${input.category} is out of scope for learnings`,
          {
            message:
              'Learnings are technical-only. Non-technical content must not be resubmitted under another category.',
            allowed_categories: [...LEARNING_CATEGORIES],
          },
        );
      }
      const owner = await ownerOf(db, who, input.contributor_wallet);
      // A retry under the key of a request already stored gets that request's answer: no screening, no limit spent,
      // nothing stored. Looked up before the screens (so a retry costs no model time) and again in the transaction.
      const keyed = requestKey
        ? { owner: owner.limitSubjects.join(' '), key: requestKey, bodyHash: sha256Hex(JSON.stringify(input)) }
        : undefined;
      const answered = async (q: Queryable, now: number): Promise<LearnResponse | undefined> => {
        if (!keyed) return undefined;
        const earlier = await learnRequestsStore.find(q, keyed.owner, keyed.key, now - LEARN_REQUEST_TTL_MS);
        if (earlier && earlier.bodyHash !== keyed.bodyHash)
          throw new DomainError(ERROR_CODES.CONFLICT, 'This Idempotency-Key was used for another learning', {
            field: 'header.Idempotency-Key',
          });
        return earlier && (JSON.parse(earlier.response) as LearnResponse);
      };
      const early = await answered(db, clock.now());
      if (early) return early;
      // The key's name is stored with the learning and shown to its buyers beside the contributor's other fields.
      const keyLabel = owner.keyId ? ((await apiKeysStore.nameOf(db, owner.keyId)) ?? null) : null;
      const text = {
        title: input.title,
        body: input.body,
        task_context: input.task_context,
        tags: input.tags,
        contributor_agent: input.contributor_agent ?? '',
        related_skills: input.related_skills ?? [],
        contributor_key_label: keyLabel,
      };
      // A submission its limits will refuse gets no model time.
      let exhausted = false;
      for (const subject of owner.limitSubjects) exhausted ||= await writeLimits.exhausted('learn', subject);
      const semantic = semanticScreens && !exhausted ? await semanticScreens.screen(text) : undefined;
      const screening =
        semantic && 'flags' in semantic
          ? withSemanticFlags(screenLearning(text, { offTask: semantic.offTask }), semantic.flags)
          : screenLearning(text);
      const screeningNote = semantic && 'skipped' in semantic ? regexOnlyNote(semantic.skipped) : null;
      const stored = screening.redacted;
      const sh = shingles(similarityText(stored.title, stored.body));
      const bandKeys = bandKeysOf(sh);
      const hash = contentHash(stored.title, stored.body);
      const dims: QualitySelfAssessment | undefined = input.quality_self_assessment;

      /**
       * What refuses the screened submission (a replaces that is not its owner's held or rejected learning, an exact
       * duplicate, a same-category near-duplicate), read before anything is written; else the learning it replaces
       * and its nearest neighbour in the held band.
       */
      const refusalChecks = async (
        q: Queryable,
      ): Promise<{ replaced?: LearningRecord; nearest?: { id: string; similarity: number } }> => {
        let replaced: LearningRecord | undefined;
        if (input.replaces) {
          const old = await learningsStore.byId(q, input.replaces);
          const ownHeld =
            old && owner.accountId && !owner.byWalletClaim && old.contributorAccountId === owner.accountId;
          if (!old || !ownHeld || !['pending_review', 'rejected'].includes(old.status))
            throw new DomainError(ERROR_CODES.NOT_FOUND, 'No held or rejected learning of yours has that id', {
              field: 'body.replaces',
            });
          replaced = old;
        }
        const same = await learningsStore.liveByContentHash(q, hash);
        if (same && same !== replaced?.id)
          throw new DomainError(ERROR_CODES.DUPLICATE_LEARNING, 'Duplicate learning detected');
        let nearest: { id: string; similarity: number } | undefined;
        for (const c of await learningsStore.bandCandidates(q, bandKeys, MAX_CANDIDATES)) {
          if (c.id === replaced?.id) continue;
          const similarity = jaccard(sh, shingles(similarityText(c.title, c.body)));
          if (similarity >= LIMITS.nearDuplicate.refuse && c.category === input.category) {
            throw new DomainError(ERROR_CODES.NEAR_DUPLICATE_LEARNING, 'Near-duplicate learning detected', {
              message: `This learning is ${Math.round(similarity * 100)}% similar to ${c.id} in the same category.`,
              existing_id: c.id,
              similarity: Math.round(similarity * 1000) / 1000,
            });
          }
          if (similarity >= LIMITS.nearDuplicate.hold && similarity > (nearest?.similarity ?? 0))
            nearest = { id: c.id, similarity };
        }
        return { replaced, nearest };
      };

      const result = await db.tx(async (q) => {
        // Submissions queue for one another: each reads what the others insert (limits, duplicates, sequence),
        // and under serializable isolation concurrent ones would otherwise abort each other again and again.
        await q.lock(SUBMISSION_LOCK);
        const now = clock.now();
        const again = await answered(q, now);
        if (again) return { answer: again, replayed: true };
        for (const subject of owner.limitSubjects) await writeLimits.take('learn', subject, q);
        const accountId = owner.accountId;
        const reasons = new Set<ReviewReason>(screening.flags.map((f) => REVIEW_REASON[f]));

        // A refusal of the screened submission commits the transaction (nothing is written by then) so its hit stays
        // counted: it cost the screens' time, and a refusal that spent nothing could be resent without end.
        const checked = await refusalChecks(q).then(
          (found) => ({ found }),
          (err: unknown) => {
            if (err instanceof DomainError && SCREENED_REFUSALS.has(err.code)) return { refused: err };
            throw err;
          },
        );
        if ('refused' in checked) return { refused: checked.refused };
        const { replaced, nearest } = checked.found;
        if (replaced) reasons.add('sanitized_resubmission');
        if (nearest) reasons.add('near_duplicate');

        if (dims && !meetsFloor(dims)) reasons.add('below_quality_floor');
        // Nobody but the platform can review an ownerless learning, nor vouch for one sent under a wallet claim:
        // those always wait for platform review.
        const firstOrOwnerless = !accountId || (await learningsStore.countPublishedBy(q, accountId)) === 0;
        if (forcedReview || firstOrOwnerless || owner.byWalletClaim) reasons.add('forced_review');
        if (input.submission_channel === 'extraction') {
          if (!dims) reasons.add('awaiting_quality');
          else if (!accountId || !(await cleanLaneConsent(q, accountId))) reasons.add('standing_consent_off');
          else {
            const threshold = (await consentStore.autoPublishThreshold(q, accountId)) ?? DEFAULT_AUTO_PUBLISH_THRESHOLD;
            if (qualityScore01(dims) < threshold) reasons.add('below_auto_publish_threshold');
          }
        }

        const status: LearnResponse['status'] = reasons.size === 0 ? 'approved' : 'pending_review';
        const complexity = complexityOf(stored.body);
        const override = input.unlock_price === undefined ? null : usdToMicro(input.unlock_price);
        const price = initialPrice(complexity, dims, override);
        const id = newId('lrn');
        await learningsStore.insert(q, {
          id,
          status,
          reviewReason: status === 'approved' ? null : [...reasons],
          category: input.category,
          title: stored.title,
          body: stored.body,
          bodyHash: sha256Hex(stored.body),
          tags: stored.tags,
          taskContext: stored.task_context,
          outcome: input.outcome,
          relatedSkills: stored.related_skills,
          contributorAccountId: accountId,
          contributorWallet: input.contributor_wallet ?? null,
          contributorKeyLabel: stored.contributor_key_label,
          contributorAgent: stored.contributor_agent,
          submissionChannel: input.submission_channel,
          sourceClient: input.tags.find((t) => t.startsWith('source:'))?.slice('source:'.length) ?? null,
          visibility: 'public',
          basePriceMicro: price.base,
          currentPriceMicro: price.current,
          overridePriceMicro: override,
          complexity,
          lastRepricedAt: now,
          qualityScore: dims ? Object.values(dims).reduce((a, b) => a + b, 0) : null,
          qualityDimensions: dims ? { ...dims } : null,
          injectionFlags: screening.injection_flags.length > 0 ? screening.injection_flags : null,
          possibleDuplicateOf: nearest?.id ?? null,
          possibleDuplicateSimilarity: nearest ? Math.round(nearest.similarity * 1000) / 1000 : null,
          publishedAt: status === 'approved' ? now : null,
          createdAt: now,
          updatedAt: now,
          seq: await learningsStore.nextSeq(q),
          contentHash: hash,
          sensitivityFindings: screening.sensitivity_findings.length > 0 ? screening.sensitivity_findings : null,
          replacesId: replaced?.id ?? null,
          screeningNote,
        });
        await learningsStore.addBandKeys(q, id, bandKeys);
        // The replaced draft leaves the queue: the sanitized one stands in for it.
        if (replaced?.status === 'pending_review') await learningsStore.setStatus(q, replaced, 'rejected', null, now);
        const answer: LearnResponse = {
          id,
          message: MESSAGES[status],
          status,
          ...(status === 'pending_review' ? { review_reason: [...reasons] } : {}),
          contributor_wallet: input.contributor_wallet ?? null,
          timestamp: new Date(now).toISOString(),
        };
        if (keyed)
          await learnRequestsStore.save(q, keyed.owner, keyed.key, {
            bodyHash: keyed.bodyHash,
            response: JSON.stringify(answer),
            createdAt: now,
          });
        return { answer, replayed: false };
      });
      if ('refused' in result) throw result.refused;
      if (!result.replayed && result.answer.status === 'approved') onVisible?.(result.answer.id);
      return result.answer;
    },
  };
}
