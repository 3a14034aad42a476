import { randomBytes } from 'node:crypto';
import { ERROR_CODES } from '@axle/sdk';
import type { Clock } from '../clock.js';
import { DomainError } from '../domain/errors.js';
import type { Logger } from '../logger.js';
import {
  type CardProcessor,
  longestTransferMs,
  type ProcessorTransfer,
  ProcessorUnavailable,
  TransferOutcomeUnknown,
  TransferRefused,
} from '../payments/card-processor.js';
import type { PayoutSender } from '../payments/payout-sender.js';
import type { SanctionsScreen } from '../payments/sanctions.js';
import type { Queryable, Transactor } from '../store/queryable.js';
import { leasesStore } from '../store/leases.js';
import { ledgerStore, type SettlementRow, UNRESOLVED } from '../store/ledger.js';
import { walletsStore } from '../store/wallets.js';
import { getAccount } from './accounts.js';
import { resolveSettlement, type SettlementOutcome } from './ledger.js';

/** Unresolved settlements one reconciliation pass looks at (the oldest first); the next pass takes the rest. */
const PASS_LIMIT = 200;
const LEASE_NAME = 'payout-reconciler';

export interface ReconcilePass {
  checked: number;
  confirmed: number;
  failed: number;
  unresolved: number;
}

/**
 * Sends payouts and finds out how they ended. A settlement's id is the idempotency key, transfer_group and
 * metadata of its one processor transfer, so sending it again (a retry, a reconciliation) can never pay twice;
 * an unknown outcome leaves it `processing_timeout` until the processor, asked through its API, says.
 */
export interface Payouts {
  /** Sends a just-opened settlement and records what is known; returns it as it now stands. */
  send(s: SettlementRow): Promise<SettlementRow>;
  /** Asks the processor (or the payout sender) about one unresolved settlement and records the answer. */
  reconcile(settlementId: string): Promise<SettlementRow>;
  /** Reconciles every unresolved settlement, on the one instance holding the lease (null: another holds it). */
  runPass(): Promise<ReconcilePass | null>;
  /** Unresolved settlements, oldest first (the admin view). */
  unresolved(limit: number): Promise<SettlementRow[]>;
}

const toMicro = (cents: number) => cents * 10_000;

export function createPayouts(deps: {
  db: Transactor;
  clock: Clock;
  logger: Logger;
  sender: PayoutSender;
  processor?: CardProcessor;
  /** Screens the settlement's wallet again before reconciliation sends what never went out. */
  sanctions?: SanctionsScreen;
  /** Lease length of a pass; a crashed holder's lease lapses after it. */
  leaseMs?: number;
  /** How long after a send of a payout started it may still be under way (longestTransferMs by default). */
  sendWindowMs?: number;
}): Payouts {
  const { db, clock, logger } = deps;
  const holder = `inst_${randomBytes(8).toString('hex')}`;
  const leaseMs = deps.leaseMs ?? 5 * 60_000;
  const sendWindowMs = deps.sendWindowMs ?? longestTransferMs();

  const reload = async (id: string) => (await ledgerStore.settlement(db, id))!;
  const record = (q: Queryable, t: ProcessorTransfer) =>
    ledgerStore.recordTransfer(q, {
      transfer_id: t.id,
      settlement_id: t.settlementId,
      amount_micro: toMicro(t.amountCents),
      destination: t.destination,
      reversed: t.reversed ? 1 : 0,
      seen_at: clock.now(),
    });

  async function settle(s: SettlementRow, outcome: SettlementOutcome, seen: ProcessorTransfer[] = []) {
    await db.tx(async (q) => {
      for (const t of seen) await record(q, t);
      await resolveSettlement(q, s, outcome, clock.now());
      await ledgerStore.markReconciled(q, s.id, clock.now());
    });
    return reload(s.id);
  }

  /** The processor rail: one transfer under the settlement's key; a refusal fails it, anything unclear waits. */
  async function transfer(s: SettlementRow): Promise<SettlementRow> {
    const processor = deps.processor;
    if (!processor || !s.destination) return s;
    // Resolved meanwhile (failed and refunded, say): sending it now would pay it on top.
    if (!(await ledgerStore.markSent(db, s.id, clock.now()))) return reload(s.id);
    try {
      const t = await processor.transfer({
        destination: s.destination,
        amountCents: s.amount_micro / 10_000,
        settlementId: s.id,
      });
      return settle(s, { status: 'confirmed', payoutId: t.id }, [t]);
    } catch (err) {
      if (err instanceof TransferRefused) return settle(s, { status: 'failed', reason: err.message });
      if (!(err instanceof TransferOutcomeUnknown)) throw err;
      logger.warn({ settlement_id: s.id, err: err.message }, 'card payout outcome unknown; left to reconciliation');
      return settle(s, { status: 'processing_timeout' });
    }
  }

  /** The wallet rail: the sender is idempotent by settlement id, so sending again is how it is asked. */
  async function sendWallet(s: SettlementRow): Promise<SettlementRow> {
    try {
      const { txHash } = await deps.sender.send({
        wallet: s.wallet!,
        amountMicro: s.amount_micro,
        settlementId: s.id,
      });
      return settle(s, { status: 'confirmed', txHash });
    } catch (err) {
      logger.warn({ settlement_id: s.id, err: (err as Error).message }, 'wallet payout outcome unknown');
      return settle(s, { status: 'processing_timeout' });
    }
  }

  /**
   * Why a payout not yet sent must not go out now: its account suspended since the request, or its wallet listed
   * ('sanctions_blocked') or the list unreadable ('sanctions_unavailable'). The request checked both, but a send
   * left to reconciliation may go out long after (a crash, a processor outage).
   */
  async function withheld(
    s: SettlementRow,
  ): Promise<'account_suspended' | 'sanctions_blocked' | 'sanctions_unavailable' | undefined> {
    if ((await getAccount(db, s.holder))?.suspended) return 'account_suspended';
    if (!deps.sanctions || !s.wallet) return undefined;
    try {
      await deps.sanctions.assertAllowed(s.wallet);
      return undefined;
    } catch (err) {
      if (err instanceof DomainError && err.code === ERROR_CODES.SANCTIONS_BLOCKED) return 'sanctions_blocked';
      if (err instanceof DomainError && err.code === ERROR_CODES.SANCTIONS_UNAVAILABLE) return 'sanctions_unavailable';
      throw err;
    }
  }

  async function reconcileRow(row: SettlementRow): Promise<SettlementRow> {
    // As it stands now: a pass's list is read at its start, and another reconciler may have resolved it or begun a send
    // (moving sent_at, which decides whether a send may still land) since.
    let s = (await ledgerStore.settlement(db, row.id)) ?? row;
    if (!UNRESOLVED.includes(s.status)) return s;
    if (s.rail === 'wallet') {
      // Asking the sender is sending: a withheld payout is not asked (it may pay) and stays unresolved, for the
      // operator, or until the account is reinstated.
      const reason = await withheld(s);
      if (!reason) return sendWallet(s);
      logger.warn({ settlement_id: s.id, reason }, 'wallet payout unresolved; not sent while withheld');
      await ledgerStore.markReconciled(db, s.id, clock.now());
      return reload(s.id);
    }
    const processor = deps.processor;
    if (!processor) {
      logger.warn({ settlement_id: s.id }, 'card payout unresolved and no processor configured to ask');
      return s;
    }
    // A settlement opened before its destination was recorded (migration 095) pays the account's payout account.
    const legacy = s.destination ? undefined : await walletsStore.payoutAccount(db, s.holder);
    if (legacy) s = { ...s, destination: legacy };
    let sent: ProcessorTransfer[];
    try {
      sent = await processor.transfersFor(s.id, legacy);
    } catch (err) {
      if (err instanceof ProcessorUnavailable) {
        logger.warn({ settlement_id: s.id, err: err.message }, 'card processor unreachable; reconciling later');
        await ledgerStore.markReconciled(db, s.id, clock.now());
        return s;
      }
      throw err;
    }
    const paid = sent.find((t) => !t.reversed && toMicro(t.amountCents) === s.amount_micro);
    if (paid) return settle(s, { status: 'confirmed', payoutId: paid.id }, sent);
    if (sent.some((t) => t.reversed)) return settle(s, { status: 'failed', reason: 'transfer reversed' }, sent);
    // The processor has no transfer for it: the request never reached it. Send it now under the same key, unless
    // its account has been suspended or its wallet listed since (nothing went out: failed, the amount back to
    // the pending balance, which the suspension or the screen keeps from being withdrawn).
    const reason = await withheld(s);
    if (reason === 'account_suspended' || reason === 'sanctions_blocked') {
      // A send (its request's, an earlier pass's) may still be under way: failed now, the transfer landing after
      // would pay it twice. Its start is dated by the clock of the instance that sent it, so it is waited for twice
      // its window: an instance whose clock runs ahead of that one's (by up to a window) never fails it too early.
      if (clock.now() - (s.sent_at ?? s.created_at) < 2 * sendWindowMs) return s;
      logger.warn({ settlement_id: s.id, reason }, 'card payout never sent; failed, the amount back');
      // Another reconciler may have started sending it since it was read: then it is not failed.
      return settle(s, { status: 'failed', reason, unsentSince: s.sent_at });
    }
    if (reason) {
      await ledgerStore.markReconciled(db, s.id, clock.now());
      return reload(s.id);
    }
    return transfer(s);
  }

  let passing = false;
  async function pass(): Promise<ReconcilePass | null> {
    const now = clock.now();
    if (!(await leasesStore.take(db, LEASE_NAME, holder, now, now + leaseMs))) return null;
    const counts: ReconcilePass = { checked: 0, confirmed: 0, failed: 0, unresolved: 0 };
    try {
      for (const s of await ledgerStore.unresolved(db, PASS_LIMIT)) {
        // Renewed before each settlement, so a slow processor cannot outlast the lease into a second pass.
        const at = clock.now();
        if (!(await leasesStore.take(db, LEASE_NAME, holder, at, at + leaseMs))) break;
        // reconcileRow reads it again: the list is as old as the pass.
        const after = await reconcileRow(s);
        counts.checked++;
        if (after.status === 'confirmed') counts.confirmed++;
        else if (after.status === 'failed') counts.failed++;
        else counts.unresolved++;
      }
    } finally {
      await leasesStore.release(db, LEASE_NAME, holder);
    }
    if (counts.checked) logger.info({ ...counts }, 'payout reconciliation pass');
    return counts;
  }

  const payouts: Payouts = {
    async send(s) {
      return s.rail === 'wallet' ? sendWallet(s) : transfer(s);
    },

    async reconcile(settlementId) {
      const s = await ledgerStore.settlement(db, settlementId);
      if (!s) throw new DomainError(ERROR_CODES.NOT_FOUND, 'Settlement not found');
      return reconcileRow(s);
    },

    async runPass() {
      // The lease is renewed by its holder, so it does not keep this instance's own second pass out (the
      // start-up pass beside the scheduled one): that one is turned away here.
      if (passing) return null;
      passing = true;
      try {
        return await pass();
      } finally {
        passing = false;
      }
    },

    unresolved: (limit) => ledgerStore.unresolved(db, limit),
  };
  return payouts;
}
