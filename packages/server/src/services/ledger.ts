import { ERROR_CODES } from '@axle/sdk';
import { DomainError } from '../domain/errors.js';
import { newId } from '../domain/ids.js';
import { type Split, splitRevenue } from '../domain/revenue-split.js';
import type { Queryable } from '../store/queryable.js';
import {
  type BalanceRow,
  type LearningTotals,
  ledgerStore,
  type SettlementRow,
  UNRESOLVED,
  type UnlockRow,
} from '../store/ledger.js';
import { termsStore } from '../store/terms.js';
import { walletKey, walletsStore } from '../store/wallets.js';

/** Who a learning's contributor share goes to, and whether it is held until the terms are accepted. */
export interface Payee {
  holder: string;
  held: boolean;
}

/**
 * The learning's payee: its owner account; else the account its contributor wallet is linked to;
 * else the wallet itself. Accounts that never accepted the terms, and unlinked wallets, accrue as
 * unassented_pending (held), converted on first acceptance or when the wallet is linked.
 */
export async function payeeOf(
  q: Queryable,
  learning: { contributorAccountId: string | null; contributorWallet: string | null },
): Promise<Payee | null> {
  const accountId =
    learning.contributorAccountId ??
    (learning.contributorWallet ? await walletsStore.accountIdByWallet(q, learning.contributorWallet) : undefined);
  if (accountId) return { holder: accountId, held: !(await termsStore.hasAny(q, accountId)) };
  if (learning.contributorWallet) return { holder: walletKey(learning.contributorWallet), held: true };
  return null;
}

/** Taken by whatever changes whether a holder's shares are held or where they go: first terms acceptance, a wallet link. */
const payeeLock = (holder: string) => `payee:${holder}`;

/**
 * payeeOf for a read-committed transaction, where a held payee could change before the share is posted
 * (a first acceptance releasing what is held, a wallet link moving it) and the share would be left held:
 * a held payee's lock is taken and the payee read again, until it stands. Not held stays not held.
 */
export async function lockedPayeeOf(
  q: Queryable,
  learning: { contributorAccountId: string | null; contributorWallet: string | null },
): Promise<Payee | null> {
  let payee = await payeeOf(q, learning);
  const locked = new Set<string>();
  while (payee?.held && !locked.has(payee.holder)) {
    locked.add(payee.holder);
    await q.lock(payeeLock(payee.holder));
    payee = await payeeOf(q, learning);
  }
  return payee;
}

export interface UnlockEntry {
  learningId: string;
  buyer: string;
  path: UnlockRow['path'];
  paidMicro: number;
  discovery: boolean;
  selfDealing: boolean;
  accrualCapped: boolean;
  payee: Payee | null;
  settlementPath?: string | null;
  txHash?: string | null;
  /** False for an x402 payment not yet settled: the share is awaiting_settlement until creditSettled. */
  credit?: boolean;
  /** The booking is the transaction's last statement and commits it (nothing written may follow). */
  last?: boolean;
  now: number;
}

/**
 * Books one unlock in the caller's transaction: the unlock row with its split, the payee's journal entry
 * and balance, the learning's running totals (only for unlocks that move demand; returned as they stand
 * after it).
 */
export async function recordUnlock(
  q: Queryable,
  e: UnlockEntry,
): Promise<{ id: string; split: Split; totals?: LearningTotals }> {
  const split = splitRevenue({
    paidMicro: e.paidMicro,
    discovery: e.discovery,
    selfDealing: e.selfDealing || !e.payee,
  });
  const id = newId('unl');
  const payee = split.contributorMicro > 0 ? e.payee : null;
  const { totals } = await ledgerStore.book(q, {
    unlock: {
      id,
      learning_id: e.learningId,
      buyer: e.buyer,
      path: e.path,
      gross_micro: split.grossMicro,
      contributor_micro: split.contributorMicro,
      platform_micro: split.platformMicro,
      payee: payee?.holder ?? null,
      held: payee?.held ? 1 : 0,
      discovery: e.discovery ? 1 : 0,
      self_dealing: e.selfDealing ? 1 : 0,
      accrual_capped: e.accrualCapped ? 1 : 0,
      settlement_path: e.settlementPath ?? null,
      tx_hash: e.txHash ?? null,
      created_at: e.now,
    },
    entry:
      payee && e.credit !== false
        ? { holder: payee.holder, kind: payee.held ? 'hold' : 'accrue', amountMicro: split.contributorMicro }
        : null,
    demand: !(e.path === 'owner' || e.selfDealing || e.accrualCapped),
    last: e.last ?? false,
  });
  return { id, split, totals };
}

/**
 * Credits the contributor share of an unlock whose payment has just settled, to the unlock's payee as it is
 * now (a wallet linked since then has moved its unlocks to the account): held until the terms are accepted.
 */
export async function creditSettled(q: Queryable, unlockId: string, txHash: string, now: number): Promise<void> {
  const u = await ledgerStore.unlock(q, unlockId);
  await ledgerStore.setUnlockTx(q, unlockId, txHash);
  if (!u?.payee || u.contributor_micro === 0) return;
  const held = !u.payee.startsWith('acc_') || !(await termsStore.hasAny(q, u.payee));
  await ledgerStore.post(q, u.payee, held ? 'hold' : 'accrue', u.contributor_micro, unlockId, now);
}

/** Converts everything the holder has held into owned, withdrawable balance (first terms acceptance). */
export async function releaseHeld(q: Queryable, holder: string, now: number): Promise<void> {
  await q.lock(payeeLock(holder));
  const { held_micro } = await ledgerStore.balance(q, holder);
  await ledgerStore.post(q, holder, 'release', held_micro, null, now);
}

/**
 * On link-wallet: the wallet-keyed held balance moves into the account, and its unlocks are
 * attributed there; it becomes withdrawable when the account has accepted the terms.
 */
export async function migrateWalletBalance(
  q: Queryable,
  wallet: string,
  accountId: string,
  now: number,
): Promise<void> {
  const from = walletKey(wallet);
  await q.lock(payeeLock(from));
  await q.lock(payeeLock(accountId));
  const { held_micro } = await ledgerStore.balance(q, from);
  await ledgerStore.post(q, from, 'migrate_out', held_micro, accountId, now);
  await ledgerStore.post(q, accountId, 'migrate_in', held_micro, from, now);
  await ledgerStore.reassignPayee(q, from, accountId);
  if (await termsStore.hasAny(q, accountId)) await releaseHeld(q, accountId, now);
}

export const balanceOf = (q: Queryable, holder: string): Promise<BalanceRow> => ledgerStore.balance(q, holder);

export interface WithdrawalRequest {
  holder: string;
  wallet: string | null;
  rail: SettlementRow['rail'];
  amountMicro: number;
  /** Processor rail: the payout account the transfer goes to. */
  destination?: string | null;
  /** The client's Idempotency-Key of the request (unique per holder). */
  requestKey?: string | null;
  /** Where the caller polls an unresolved withdrawal (the 409 and 202 answers carry it). */
  pollUrl: string;
  now: number;
}

/**
 * Debits the holder's pending balance into a new pending settlement, in the caller's transaction.
 * One unresolved settlement per holder (also enforced by a unique index): a second is 409.
 */
export async function openSettlement(q: Queryable, w: WithdrawalRequest): Promise<SettlementRow> {
  const inFlight = await ledgerStore.inFlight(q, w.holder);
  if (inFlight) {
    throw new DomainError(
      ERROR_CODES.WITHDRAWAL_IN_FLIGHT,
      'A withdrawal is already in flight; poll it before withdrawing again',
      {
        settlement_id: inFlight.id,
        settlement_status: inFlight.status,
        poll_url: w.pollUrl,
      },
    );
  }
  const { pending_micro } = await ledgerStore.balance(q, w.holder);
  if (!Number.isSafeInteger(w.amountMicro) || w.amountMicro < 0)
    throw new DomainError(ERROR_CODES.VALIDATION, 'invalid amount');
  if (w.amountMicro > pending_micro || w.amountMicro === 0) {
    throw new DomainError(ERROR_CODES.VALIDATION, 'insufficient balance', {
      pending_balance: pending_micro / 1_000_000,
    });
  }
  const row: SettlementRow = {
    id: newId('set'),
    holder: w.holder,
    wallet: w.wallet && walletKey(w.wallet),
    rail: w.rail,
    amount_micro: w.amountMicro,
    status: 'pending',
    tx_hash: null,
    payout_id: null,
    created_at: w.now,
    confirmed_at: null,
    destination: w.destination ?? null,
    failure_reason: null,
    reconciled_at: null,
    request_key: w.requestKey ?? null,
    sent_at: null,
  };
  await ledgerStore.insertSettlement(q, row);
  await ledgerStore.post(q, w.holder, 'withdraw', w.amountMicro, row.id, w.now);
  return row;
}

export type SettlementOutcome =
  | { status: 'confirmed'; txHash?: string | null; payoutId?: string | null }
  | { status: 'processing_timeout'; txHash?: string | null }
  | {
      status: 'failed';
      reason?: string;
      /** Fails it only if no send started after this one (null: none): a send under way may yet pay it. */
      unsentSince?: number | null;
    };

/**
 * Records how a payout ended, once: only an unresolved settlement moves (a timeout only from pending), so a
 * request and a reconciliation racing cannot both resolve it; a failed one gives the amount back to the
 * pending balance. Returns whether this call moved it.
 */
export async function resolveSettlement(
  q: Queryable,
  s: SettlementRow,
  outcome: SettlementOutcome,
  now: number,
): Promise<boolean> {
  if (outcome.status === 'failed') {
    const moved = await ledgerStore.transitionSettlement(
      q,
      s.id,
      UNRESOLVED,
      { status: 'failed', failure_reason: outcome.reason?.slice(0, 500) ?? null },
      outcome.unsentSince,
    );
    if (moved) await ledgerStore.post(q, s.holder, 'refund', s.amount_micro, s.id, now);
    return moved;
  }
  if (outcome.status === 'processing_timeout')
    return ledgerStore.transitionSettlement(q, s.id, ['pending'], {
      status: 'processing_timeout',
      tx_hash: outcome.txHash ?? null,
    });
  return ledgerStore.transitionSettlement(q, s.id, UNRESOLVED, {
    status: 'confirmed',
    tx_hash: outcome.txHash ?? null,
    payout_id: outcome.payoutId ?? null,
    confirmed_at: now,
  });
}
