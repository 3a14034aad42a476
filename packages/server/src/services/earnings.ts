import { type AccountEarnings, type ContributorSettlements, ERROR_CODES, microToUsd, type z } from '@axle/sdk';
import type { ContributorEarnings, Settlement } from '@axle/sdk';
import { DomainError } from '../domain/errors.js';
import type { Database, Queryable } from '../store/db.js';
import { learningsStore } from '../store/learnings.js';
import { ledgerStore, type SettlementRow } from '../store/ledger.js';
import { paymentClaimsStore } from '../store/payment-claims.js';
import { walletKey, walletsStore } from '../store/wallets.js';
import { getAccount } from './accounts.js';
import { hasAcceptedCurrentTerms } from './terms.js';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
/** Rows a per-wallet listing returns at most. */
const LIST_LIMIT = 500;

export const toSettlement = (s: SettlementRow): z.infer<typeof Settlement> => ({
  id: s.id,
  amount_usd: microToUsd(s.amount_micro),
  rail: s.rail,
  status: s.status,
  tx_hash: s.tx_hash,
  created_at: new Date(s.created_at).toISOString(),
  confirmed_at: iso(s.confirmed_at),
});

/** GET /contributor/{wallet}: the wallet's learnings, their unlock revenue and its split. */
export async function contributorEarnings(db: Queryable, wallet: string): Promise<z.infer<typeof ContributorEarnings>> {
  const [rows, submitted, awaiting] = await Promise.all([
    ledgerStore.walletLearnings(db, wallet, LIST_LIMIT),
    learningsStore.countVisibleByWallet(db, wallet),
    paymentClaimsStore.awaitingForWallet(db, wallet),
  ]);
  const sum = (f: 'gross_micro' | 'contributor_micro' | 'platform_micro') => rows.reduce((n, r) => n + r[f], 0);
  const last = rows.reduce<number | null>(
    (m, r) => (r.last_unlock_at !== null && (m === null || r.last_unlock_at > m) ? r.last_unlock_at : m),
    null,
  );
  return {
    wallet: walletKey(wallet),
    total_gross_usd: microToUsd(sum('gross_micro')),
    total_contributor_usd: microToUsd(sum('contributor_micro')),
    total_platform_usd: microToUsd(sum('platform_micro')),
    total_awaiting_settlement_usd: microToUsd(awaiting),
    by_learning: Object.fromEntries(
      rows
        .filter((r) => r.unlock_count > 0)
        .map((r) => [
          r.id,
          {
            title: r.title,
            unlocks: r.unlock_count,
            gross_usd: microToUsd(r.gross_micro),
            contributor_usd: microToUsd(r.contributor_micro),
          },
        ]),
    ),
    learnings_submitted: submitted,
    last_updated: iso(last),
  };
}

export interface EarningsService {
  account(accountId: string): Promise<z.infer<typeof AccountEarnings>>;
  settlements(wallet: string): Promise<z.infer<typeof ContributorSettlements>>;
}

export function createEarningsService(deps: { db: Database; custodialWithdrawals: boolean }): EarningsService {
  const { db } = deps;
  return {
    async account(accountId) {
      const account = await getAccount(db, accountId);
      if (!account) throw new DomainError(ERROR_CODES.NOT_FOUND, 'Account not found');
      const [b, gross, terms, awaiting] = await Promise.all([
        ledgerStore.balance(db, accountId),
        ledgerStore.grossFor(db, accountId),
        hasAcceptedCurrentTerms(db, accountId),
        paymentClaimsStore.awaitingFor(db, accountId),
      ]);
      const canWithdraw = deps.custodialWithdrawals && terms && !account.suspended && b.pending_micro > 0;
      const message = !deps.custodialWithdrawals
        ? 'Earnings accrue now; withdrawals are paused during the non-custodial migration.'
        : !terms
          ? 'Accept the current terms (POST /account/accept-terms) to own held earnings and withdraw.'
          : canWithdraw
            ? 'Withdraw with POST /withdraw (wallet) or POST /withdraw/processor (card payout).'
            : awaiting > 0
              ? 'Nothing to withdraw yet: your earnings from x402 payments are awaiting settlement on chain.'
              : 'Nothing to withdraw yet.';
      return {
        account_id: accountId,
        wallet: account.wallet,
        total_gross_usd: microToUsd(gross),
        total_gross: microToUsd(gross),
        total_contributor: microToUsd(b.owned_micro),
        total_contributor_gross: microToUsd(b.owned_micro + b.held_micro),
        unassented_pending: microToUsd(b.held_micro),
        pending_balance: microToUsd(b.pending_micro),
        awaiting_settlement: microToUsd(awaiting),
        total_withdrawn: microToUsd(b.withdrawn_micro),
        withdrawal_count: b.withdrawal_count,
        can_withdraw: canWithdraw,
        message,
      };
    },

    async settlements(wallet) {
      const holder = (await walletsStore.accountIdByWallet(db, wallet)) ?? walletKey(wallet);
      const [b, rows] = await Promise.all([
        ledgerStore.balance(db, holder),
        ledgerStore.settlementsFor(db, holder, LIST_LIMIT),
      ]);
      return {
        wallet: walletKey(wallet),
        pending_balance: microToUsd(b.pending_micro),
        total_withdrawn: microToUsd(b.withdrawn_micro),
        settlements: rows.map(toSettlement),
      };
    },
  };
}
