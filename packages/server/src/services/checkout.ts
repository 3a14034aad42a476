import { ERROR_CODES, type Purchase, microToUsd } from '@axle/sdk';
import type { Clock } from '../clock.js';
import { CREDIT_PACKS, creditPack } from '../domain/credit-packs.js';
import { DomainError } from '../domain/errors.js';
import { newId } from '../domain/ids.js';
import { type Reversible, restorationDue, reversalDue } from '../domain/credit-reversal.js';
import {
  type CardProcessor,
  type CheckoutSessionEvent,
  disputeRecorded,
  InvalidEventSignature,
  MalformedEvent,
  type ProcessorEvent,
  ProcessorUnavailable,
  reinstatedBefore,
  reversedCents,
} from '../payments/card-processor.js';
import { creditsStore, type PurchaseRow } from '../store/credits.js';
import type { Queryable, Transactor } from '../store/queryable.js';
import type { RateLimiter } from './rate-limit.js';

/** Checkout sessions an account may open per hour. */
const CHECKOUTS_PER_HOUR = 20;

/** What one processor event did (recorded in processor_events and answered). */
export type EventOutcome =
  | 'credited'
  | 'reversed'
  | 'reinstated'
  | 'already_reinstated'
  | 'unknown_dispute'
  | 'inquiry'
  | 'session_failed'
  | 'not_paid'
  | 'amount_mismatch'
  | 'unknown_session'
  | 'already_credited'
  | 'unknown_purchase'
  | 'ignored';

export interface WebhookAnswer {
  received: true;
  processed: boolean;
  already_processed: boolean;
  purchase_id: string | null;
  outcome: EventOutcome;
}

export interface CheckoutService {
  /** Opens a hosted checkout and records the session (account, pack, amount, currency) the webhook will trust. */
  createSession(accountId: string, packId: string): Promise<{ url: string; session_id: string }>;
  /**
   * Applies a signed processor event once (a replay answers already_processed). Credits are granted only for a
   * session this server created, paid, at its recorded amount and currency; refunds, failed payments and
   * disputes that withdraw money take them back (an inquiry takes nothing until escalated), and a won dispute's
   * reinstated funds give back what it took. Anything else is recorded and answered 200 without credits.
   */
  handleEvent(rawBody: Buffer, signature: string): Promise<WebhookAnswer>;
  purchases(accountId: string): Promise<{
    purchases: Purchase[];
    total_spent_usd: number;
    credit_debt: { unlocks: number; amount_usd: number; settled_usd: number };
  }>;
}

const toPurchase = (p: PurchaseRow): Purchase => ({
  id: p.id,
  pack_id: p.pack_id as Purchase['pack_id'],
  amount_usd: microToUsd(p.amount_micro),
  queries_added: p.queries_added,
  unlocks_added: p.unlocks_added,
  timestamp: new Date(p.created_at).toISOString(),
});

const reversible = (p: PurchaseRow): Reversible => ({
  amountCents: p.amount_micro / 10_000,
  unlocksAdded: p.unlocks_added,
  queriesAdded: p.queries_added,
  reversedCents: p.reversed_cents,
  reversedUnlocks: p.reversed_unlocks,
  reversedQueries: p.reversed_queries,
});

const notConfigured = () => new DomainError(ERROR_CODES.PROVIDER_NOT_CONFIGURED, 'checkout provider not configured');
const CURRENCY = 'usd';

export function createCheckoutService(deps: {
  db: Transactor;
  clock: Clock;
  baseUrl(): string;
  rateLimiter: RateLimiter;
  processor?: CardProcessor;
}): CheckoutService {
  const { db, clock, processor } = deps;

  type Applied = { outcome: EventOutcome; purchaseId?: string | null; detail?: Record<string, unknown> };

  async function completed(q: Queryable, eventId: string, s: CheckoutSessionEvent, now: number): Promise<Applied> {
    const session = await creditsStore.session(q, s.id);
    if (!session) return { outcome: 'unknown_session', detail: { session_id: s.id } };
    const pack = creditPack(session.pack_id)!;
    if (s.paymentStatus !== 'paid') return { outcome: 'not_paid', detail: { payment_status: s.paymentStatus } };
    if (s.amountTotal !== session.amount_cents || s.currency?.toLowerCase() !== session.currency)
      return {
        outcome: 'amount_mismatch',
        detail: {
          expected: { amount_total: session.amount_cents, currency: session.currency },
          got: { amount_total: s.amountTotal, currency: s.currency },
        },
      };
    const row: PurchaseRow = {
      id: newId('pur'),
      account_id: session.account_id,
      pack_id: pack.id,
      amount_micro: session.amount_cents * 10_000,
      queries_added: pack.queries,
      unlocks_added: pack.unlocks,
      checkout_session_id: session.id,
      created_at: now,
      payment_intent: s.paymentIntent,
      reversed_cents: 0,
      reversed_unlocks: 0,
      reversed_queries: 0,
      revoked_unlocks: 0,
    };
    if (!(await creditsStore.insertPurchase(q, row))) {
      const existing = await creditsStore.purchaseBySession(q, session.id);
      return { outcome: 'already_credited', purchaseId: existing?.id ?? null };
    }
    const settled = await settleDebt(q, row, now);
    await creditsStore.add(
      q,
      session.account_id,
      pack.unlocks - settled.withheld_unlocks,
      pack.queries - settled.withheld_queries,
      row.amount_micro - settled.amount_micro,
      now,
    );
    // A refund or dispute delivered before this completion (the processor does not promise order) found no
    // purchase then: it takes its credits back now.
    const early = row.payment_intent ? reversedCents(await creditsStore.reversalsOf(q, row.payment_intent)) : 0;
    if (early > 0) {
      const reversed = await reverse(q, eventId, row, early, now);
      return {
        outcome: 'credited',
        purchaseId: row.id,
        detail: { early_reversal: reversed.detail, ...(settled.amount_micro && { debt_settled: settled }) },
      };
    }
    return {
      outcome: 'credited',
      purchaseId: row.id,
      ...(settled.amount_micro && { detail: { debt_settled: settled } }),
    };
  }

  /**
   * A purchase credited to an account that owes a credit debt pays it first, out of the new pack's money: that
   * money stays out of the credits' value and the credits it would have bought (rounded up) are not granted, so
   * each granted credit keeps the pack's price behind it. Serialised per account so racing purchases pay it once.
   */
  async function settleDebt(q: Queryable, row: PurchaseRow, now: number) {
    await q.lock(`credit-debt:${row.account_id}`);
    const debt = await creditsStore.debtOf(q, row.account_id);
    const amount = Math.min(Math.max(0, debt.amount_micro), row.amount_micro);
    const none = { amount_micro: 0, unlocks: 0, withheld_unlocks: 0, withheld_queries: 0 };
    if (amount <= 0 || row.amount_micro <= 0) return none;
    const share = (n: number) => Math.ceil((n * amount) / row.amount_micro);
    const settled = {
      amount_micro: amount,
      unlocks: amount === debt.amount_micro ? debt.unlocks : Math.floor((debt.unlocks * amount) / debt.amount_micro),
      withheld_unlocks: share(row.unlocks_added),
      withheld_queries: share(row.queries_added),
    };
    await creditsStore.insertSettlement(q, {
      id: newId('dbs'),
      account_id: row.account_id,
      purchase_id: row.id,
      ...settled,
      created_at: now,
    });
    return settled;
  }

  /** Takes back the credits `reversedCents` of the purchase paid for; what was spent becomes a debt. */
  async function reverse(
    q: Queryable,
    eventId: string,
    purchase: PurchaseRow,
    reversedCents: number,
    now: number,
  ): Promise<Applied> {
    const due = reversalDue(reversible(purchase), reversedCents);
    // The money this reversal returns leaves the credits' value: the refunded purchase's own money, not the
    // average of every pack the account holds (a cheap pack's refund would leave its money behind the others'
    // credits). What the remaining value cannot cover was already booked by spent credits: a debt.
    const refundedMicro = (due.cents - purchase.reversed_cents) * 10_000;
    const took = await creditsStore.take(q, purchase.account_id, { ...due, valueMicro: refundedMicro }, now);
    const owed = {
      unlocks: due.unlocks - took.unlocks,
      queries: due.queries - took.queries,
      amount_micro: Math.max(0, refundedMicro - took.valueMicro),
    };
    if (owed.unlocks || owed.queries || owed.amount_micro)
      await creditsStore.insertDebt(q, {
        id: newId('dbt'),
        account_id: purchase.account_id,
        purchase_id: purchase.id,
        event_id: eventId,
        ...owed,
        created_at: now,
      });
    await creditsStore.setReversed(q, purchase.id, {
      reversed_cents: due.cents,
      reversed_unlocks: purchase.reversed_unlocks + due.unlocks,
      reversed_queries: purchase.reversed_queries + due.queries,
      revoked_unlocks: purchase.revoked_unlocks + took.unlocks,
    });
    return {
      outcome: 'reversed',
      purchaseId: purchase.id,
      detail: { reversed_cents: due.cents, revoked: { unlocks: took.unlocks, queries: took.queries }, owed },
    };
  }

  /**
   * Gives back what lowering the money reversed to `reversedCents` frees (a won dispute): first the debt the
   * purchase's reversals made that is still owed, then credits with the returned money behind them. Serialised per
   * account with debt settlement, so a racing purchase does not pay the debt this cancels.
   */
  async function restore(
    q: Queryable,
    eventId: string,
    purchase: PurchaseRow,
    reversedCents: number,
    now: number,
  ): Promise<Applied> {
    const due = restorationDue(reversible(purchase), reversedCents);
    const returnedMicro = (purchase.reversed_cents - due.cents) * 10_000;
    await q.lock(`credit-debt:${purchase.account_id}`);
    // One after another: a transaction's statements share one connection.
    const made = await creditsStore.debtOfPurchase(q, purchase.id);
    const owed = await creditsStore.debtOf(q, purchase.account_id);
    const settled = await creditsStore.debtSettled(q, purchase.account_id);
    const cancel = (n: number, ...caps: number[]) => Math.max(0, Math.min(n, ...caps));
    // The debt this frees: what is still owed is cancelled; what later purchases paid of it gives back the credits
    // they withheld for that money (at their packs' rate), not this purchase's spent credits.
    const freed = {
      unlocks: cancel(due.unlocks, made.unlocks),
      queries: cancel(due.queries, made.queries),
      amount_micro: cancel(returnedMicro, made.amount_micro),
    };
    const cancelled = {
      unlocks: cancel(freed.unlocks, owed.unlocks),
      queries: cancel(freed.queries, owed.queries),
      amount_micro: cancel(freed.amount_micro, owed.amount_micro),
    };
    const repaid = { unlocks: freed.unlocks - cancelled.unlocks, micro: freed.amount_micro - cancelled.amount_micro };
    const back = cancel(repaid.micro, settled.amount_micro);
    const withheld = (n: number) => (back > 0 ? Math.floor((n * back) / settled.amount_micro) : 0);
    if (cancelled.unlocks || cancelled.queries || cancelled.amount_micro || repaid.unlocks || repaid.micro)
      await creditsStore.insertDebtCancellation(q, {
        id: newId('dbc'),
        account_id: purchase.account_id,
        purchase_id: purchase.id,
        event_id: eventId,
        ...cancelled,
        repaid_unlocks: repaid.unlocks,
        repaid_micro: repaid.micro,
        created_at: now,
      });
    const credited = {
      unlocks: due.unlocks - freed.unlocks + withheld(settled.withheld_unlocks),
      queries: due.queries - freed.queries + withheld(settled.withheld_queries),
      valueMicro: returnedMicro - cancelled.amount_micro,
    };
    await creditsStore.add(q, purchase.account_id, credited.unlocks, credited.queries, credited.valueMicro, now);
    // Revoked plus the debt rows left (less cancellations) still equals what stays reversed; when a later purchase
    // already paid the debt, this goes below zero.
    await creditsStore.setReversed(q, purchase.id, {
      reversed_cents: due.cents,
      reversed_unlocks: purchase.reversed_unlocks - due.unlocks,
      reversed_queries: purchase.reversed_queries - due.queries,
      revoked_unlocks: purchase.revoked_unlocks - (due.unlocks - cancelled.unlocks),
    });
    return {
      outcome: 'reinstated',
      purchaseId: purchase.id,
      detail: {
        reversed_cents: due.cents,
        credited: { unlocks: credited.unlocks, queries: credited.queries },
        debt_cancelled: cancelled,
      },
    };
  }

  async function apply(q: Queryable, e: ProcessorEvent, now: number): Promise<Applied> {
    switch (e.kind) {
      case 'session_completed':
        return completed(q, e.eventId, e.session, now);
      case 'session_failed': {
        // A payment that failed after the session completed unpaid: nothing was credited, unless it was.
        const purchase = await creditsStore.purchaseBySession(q, e.session.id);
        if (purchase) return reverse(q, e.eventId, purchase, purchase.amount_micro / 10_000, now);
        const known = await creditsStore.session(q, e.session.id);
        return { outcome: known ? 'session_failed' : 'unknown_session', detail: { session_id: e.session.id } };
      }
      case 'reversal': {
        const purchase = e.paymentIntent && (await creditsStore.purchaseByPaymentIntent(q, e.paymentIntent));
        if (!purchase) return { outcome: 'unknown_purchase', detail: { payment_intent: e.paymentIntent } };
        // This event is recorded with the payment's others: what they took back together.
        const reversed = reversedCents(await creditsStore.reversalsOf(q, purchase.payment_intent!));
        return reverse(q, e.eventId, purchase, reversed, now);
      }
      case 'dispute_inquiry': {
        // Recorded, reversing no cents: an inquiry takes nothing until its money is withdrawn (funds_withdrawn).
        const purchase = e.paymentIntent && (await creditsStore.purchaseByPaymentIntent(q, e.paymentIntent));
        if (!purchase) return { outcome: 'unknown_purchase', detail: { payment_intent: e.paymentIntent } };
        return { outcome: 'inquiry', purchaseId: purchase.id, detail: { dispute_id: e.disputeId } };
      }
      case 'dispute_reinstated': {
        // Only a dispute recorded for this payment, once: a reinstatement of a dispute never seen (or delivered
        // before it) is recorded, so the dispute, if it comes, takes nothing.
        const purchase = e.paymentIntent && (await creditsStore.purchaseByPaymentIntent(q, e.paymentIntent));
        if (!purchase) return { outcome: 'unknown_purchase', detail: { payment_intent: e.paymentIntent } };
        const recorded = await creditsStore.reversalsOf(q, purchase.payment_intent!);
        const detail = { dispute_id: e.disputeId };
        if (!disputeRecorded(recorded, e.disputeId))
          return { outcome: 'unknown_dispute', purchaseId: purchase.id, detail };
        if (reinstatedBefore(recorded, e.disputeId, e.eventId))
          return { outcome: 'already_reinstated', purchaseId: purchase.id, detail };
        return restore(q, e.eventId, purchase, reversedCents(recorded), now);
      }
      default:
        return { outcome: 'ignored' };
    }
  }

  return {
    async createSession(accountId, packId) {
      const pack = creditPack(packId);
      if (!pack)
        // The pack is not echoed: it may be anything up to the body limit.
        throw new DomainError(ERROR_CODES.VALIDATION, 'Unknown credit pack: choose one of valid_packs', {
          valid_packs: CREDIT_PACKS,
        });
      if (!processor) throw notConfigured();
      await db.tx((q) =>
        deps.rateLimiter.take(`checkout:account:${accountId}`, { limit: CHECKOUTS_PER_HOUR, windowMs: 3_600_000 }, q),
      );
      const amountCents = Math.round(pack.price_usd * 100);
      let session: { id: string; url: string };
      try {
        session = await processor.createCheckout({
          accountId,
          packId: pack.id,
          name: `Axle ${pack.name} credit pack (${pack.unlocks} unlocks, ${pack.queries} queries)`,
          amountCents,
          currency: CURRENCY,
          successUrl: `${deps.baseUrl()}/account/purchases?checkout=complete`,
          cancelUrl: `${deps.baseUrl()}/account/purchases?checkout=cancelled`,
        });
      } catch (err) {
        if (err instanceof ProcessorUnavailable)
          throw new DomainError(ERROR_CODES.PROVIDER_UNAVAILABLE, 'checkout provider unavailable');
        throw err;
      }
      await creditsStore.insertSession(db, {
        id: session.id,
        account_id: accountId,
        pack_id: pack.id,
        amount_cents: amountCents,
        currency: CURRENCY,
        created_at: clock.now(),
      });
      return { url: session.url, session_id: session.id };
    },

    async handleEvent(rawBody, signature) {
      if (!processor) throw notConfigured();
      let event: ProcessorEvent;
      try {
        event = processor.parseEvent(rawBody, signature);
      } catch (err) {
        if (err instanceof InvalidEventSignature) throw new DomainError(ERROR_CODES.VALIDATION, 'invalid signature');
        if (err instanceof MalformedEvent) throw new DomainError(ERROR_CODES.VALIDATION, err.message);
        throw err;
      }
      return db.tx(async (q) => {
        const now = clock.now();
        const claimed = await creditsStore.claimEvent(q, {
          event_id: event.eventId,
          type: event.type,
          outcome: 'received',
          detail: null,
          purchase_id: null,
          received_at: now,
          ...(event.kind === 'reversal' && {
            payment_intent: event.paymentIntent,
            reversed_cents: event.reversedCents,
            dispute_id: event.disputeId,
          }),
          ...((event.kind === 'dispute_inquiry' || event.kind === 'dispute_reinstated') && {
            payment_intent: event.paymentIntent,
            dispute_id: event.disputeId,
          }),
        });
        if (!claimed) {
          const seen = (await creditsStore.event(q, event.eventId))!;
          return {
            received: true as const,
            processed: false,
            already_processed: true,
            purchase_id: seen.purchase_id,
            outcome: seen.outcome as EventOutcome,
          };
        }
        const applied = await apply(q, event, now);
        await creditsStore.settleEvent(q, event.eventId, {
          outcome: applied.outcome,
          detail: applied.detail ? JSON.stringify(applied.detail) : null,
          purchase_id: applied.purchaseId ?? null,
        });
        return {
          received: true as const,
          processed: ['credited', 'reversed', 'reinstated'].includes(applied.outcome),
          already_processed: applied.outcome === 'already_credited',
          purchase_id: applied.purchaseId ?? null,
          outcome: applied.outcome,
        };
      });
    },

    async purchases(accountId) {
      const [rows, total, debt, settled] = await Promise.all([
        creditsStore.purchases(db, accountId, 500),
        creditsStore.totalSpent(db, accountId),
        creditsStore.debtOf(db, accountId),
        creditsStore.debtSettled(db, accountId),
      ]);
      return {
        purchases: rows.map(toPurchase),
        total_spent_usd: microToUsd(total),
        credit_debt: {
          unlocks: debt.unlocks,
          amount_usd: microToUsd(debt.amount_micro),
          settled_usd: microToUsd(settled.amount_micro),
        },
      };
    },
  };
}
