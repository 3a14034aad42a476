import { type AcceptTermsResponse, CURRENT_TOS_VERSION, ERROR_CODES, type TermsStatus } from '@axle/sdk';
import type { Clock } from '../clock.js';
import { DomainError } from '../domain/errors.js';
import type { Queryable, Transactor } from '../store/queryable.js';
import { termsStore } from '../store/terms.js';
import { appendAudit } from './audit.js';

/**
 * Runs inside the acceptance transaction, once per account, on its first acceptance ever (for example to
 * convert held unassented_pending earnings into withdrawable balance); a hook that throws rolls the
 * acceptance back.
 */
export type FirstTermsAcceptanceHook = (q: Queryable, accountId: string) => Promise<void>;

/** Where the terms page lives (GET /terms). */
export const termsUrlFor = (baseUrl: string): string => `${baseUrl}/terms`;

/** Whether the account has accepted the version in force (what money and agency routes gate on). */
export async function hasAcceptedCurrentTerms(q: Queryable, accountId: string): Promise<boolean> {
  return (await termsStore.find(q, accountId, CURRENT_TOS_VERSION)) !== undefined;
}

/** The 403 TermsNotAccepted answer of money and agency routes. */
export const termsNotAccepted = (termsUrl: string): DomainError =>
  new DomainError(ERROR_CODES.TERMS_NOT_ACCEPTED, 'The current terms of service have not been accepted', {
    current_tos_version: CURRENT_TOS_VERSION,
    how_to_accept: `POST /account/accept-terms with {"version": "${CURRENT_TOS_VERSION}", "agree": true} after reading the terms`,
    terms_url: termsUrl,
  });

export interface TermsService {
  /** Push hooks here (composition root); they run in registration order. */
  readonly onFirstTermsAcceptance: FirstTermsAcceptanceHook[];
  termsUrl(): string;
  /** Whether the account has accepted the version in force (what money and agency routes gate on). */
  hasAcceptedCurrent(accountId: string): Promise<boolean>;
  status(accountId: string): Promise<TermsStatus>;
  accept(
    accountId: string,
    input: { version: string; agree?: boolean; via: 'jwt' | 'key' },
  ): Promise<AcceptTermsResponse>;
}

export function createTermsService(deps: {
  db: Transactor;
  clock: Clock;
  baseUrl(): string;
  onFirstTermsAcceptance?: FirstTermsAcceptanceHook[];
}): TermsService {
  const { db, clock } = deps;
  const hooks = deps.onFirstTermsAcceptance ?? [];
  const termsUrl = () => termsUrlFor(deps.baseUrl());
  return {
    onFirstTermsAcceptance: hooks,
    termsUrl,
    hasAcceptedCurrent: (accountId) => hasAcceptedCurrentTerms(db, accountId),

    async status(accountId) {
      const latest = await termsStore.latest(db, accountId);
      return {
        current_tos_version: CURRENT_TOS_VERSION,
        accepted_version: latest?.version ?? null,
        accepted_at: latest?.accepted_at ?? null,
        terms_url: termsUrl(),
      };
    },

    async accept(accountId, { version, agree, via }) {
      if (agree !== true) {
        throw new DomainError(ERROR_CODES.AFFIRMATION_REQUIRED, 'Accepting the terms requires agree: true', {
          terms_url: termsUrl(),
        });
      }
      if (version !== CURRENT_TOS_VERSION) {
        throw new DomainError(ERROR_CODES.CONFLICT, `Version ${version} is not the current terms version`, {
          current_tos_version: CURRENT_TOS_VERSION,
          terms_url: termsUrl(),
        });
      }
      return db.tx(async (q) => {
        const already = await termsStore.find(q, accountId, version);
        if (already)
          return {
            message: 'Terms already accepted',
            version,
            accepted_at: already.accepted_at,
            audit_ref: already.audit_ref,
          };
        const first = !(await termsStore.hasAny(q, accountId));
        const now = clock.now();
        const auditRef = await appendAudit(
          q,
          {
            actor: `account:${accountId}`,
            action: 'terms.accepted',
            subject: accountId,
            data: { version, via, first_acceptance: first },
          },
          now,
        );
        await termsStore.insert(q, { account_id: accountId, version, accepted_at: now, via, audit_ref: auditRef });
        if (first) for (const hook of hooks) await hook(q, accountId);
        return { message: 'Terms accepted', version, accepted_at: now, audit_ref: auditRef };
      });
    },
  };
}
