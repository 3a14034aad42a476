import { z } from '@axle/sdk';
import type Stripe from 'stripe';

/** A checkout session as the events carry it (checkout.session.*). */
export interface CheckoutSessionEvent {
  id: string;
  paymentStatus: string;
  amountTotal: number | null;
  currency: string | null;
  paymentIntent: string | null;
}

/** The processor events the server acts on; anything else is `other` (acknowledged, recorded, ignored). */
export type ProcessorEvent = { eventId: string; type: string } & (
  | { kind: 'session_completed'; session: CheckoutSessionEvent }
  | { kind: 'session_failed'; session: CheckoutSessionEvent }
  /**
   * charge.refunded (cumulative amount refunded), and a dispute's money withdrawn (amount disputed, the dispute's
   * id): charge.dispute.created of a chargeback, or charge.dispute.funds_withdrawn (an inquiry escalated). An
   * inquiry's charge.dispute.created withdraws nothing: kind dispute_inquiry.
   */
  | {
      kind: 'reversal';
      paymentIntent: string | null;
      reversedCents: number;
      ofCents: number | null;
      disputeId: string | null;
    }
  /** charge.dispute.created of an inquiry (status warning_*): no money withdrawn. */
  | { kind: 'dispute_inquiry'; paymentIntent: string | null; disputeId: string | null }
  /** charge.dispute.funds_reinstated of a won dispute: its money was returned. */
  | { kind: 'dispute_reinstated'; paymentIntent: string | null; disputeId: string }
  | { kind: 'other' }
);

/** The signature header did not verify against the webhook secret. */
export class InvalidEventSignature extends Error {}
/** A validly signed event whose content is not what the processor sends (empty data, null ids, wrong types). */
export class MalformedEvent extends Error {}
/** The processor's API could not be reached or refused the call. */
export class ProcessorUnavailable extends Error {}
/** The processor refused the transfer (a 4xx that says it did not act): nothing moved. */
export class TransferRefused extends Error {}
/** No answer, or one that does not say whether money moved (timeout, 5xx, 429, the same key in flight). */
export class TransferOutcomeUnknown extends Error {}

/** A transfer as the processor reports it. */
export interface ProcessorTransfer {
  id: string;
  amountCents: number;
  destination: string;
  /** The transfer_group it was sent with: the settlement id for the server's own transfers. */
  settlementId: string | null;
  reversed: boolean;
  /** Cents the processor has taken back; `reversed` is true only once all of it is. */
  amountReversedCents: number;
}

/** What the server asks of the card processor: hosted checkout, signed events, connected payout accounts. */
export interface CardProcessor {
  createCheckout(input: {
    accountId: string;
    packId: string;
    name: string;
    amountCents: number;
    currency: string;
    successUrl: string;
    cancelUrl: string;
  }): Promise<{
    id: string;
    url: string;
  }>;
  /** Verifies the signature over the raw body (throws InvalidEventSignature), then reads it (MalformedEvent). */
  parseEvent(rawBody: Buffer, signature: string): ProcessorEvent;
  createPayoutAccount(input: { accountId: string; email: string }): Promise<string>;
  /** A hosted onboarding link for the payout account. */
  onboardingLink(payoutAccountId: string, returnUrl: string, refreshUrl: string): Promise<string>;
  /** Whether onboarding is complete enough to receive payouts. */
  payoutsEnabled(payoutAccountId: string): Promise<boolean>;
  /**
   * Moves money to the payout account under the idempotency key `settlementId` (the processor answers a
   * repeat with the first result), tagged with it as transfer_group and metadata. Throws TransferRefused or
   * TransferOutcomeUnknown.
   */
  transfer(input: { destination: string; amountCents: number; settlementId: string }): Promise<ProcessorTransfer>;
  /**
   * The transfers sent for a settlement, listed by transfer_group; for one sent before transfer_group was set,
   * `legacyDestination`'s transfers (up to 1,000) whose metadata names it. Throws ProcessorUnavailable.
   */
  transfersFor(settlementId: string, legacyDestination?: string): Promise<ProcessorTransfer[]>;
  /** One transfer by id, or null when the processor has none; throws ProcessorUnavailable. */
  retrieveTransfer(transferId: string): Promise<ProcessorTransfer | null>;
  /** Every transfer, newest first, up to `max` (ledger:check); throws ProcessorUnavailable. */
  allTransfers(max: number): Promise<ProcessorTransfer[]>;
}

const call = async <T>(fn: () => Promise<T>): Promise<T> => {
  try {
    return await fn();
  } catch (err) {
    throw new ProcessorUnavailable(`card processor: ${(err as Error).message}`);
  }
};

const DEFAULT_TIMEOUT_MS = 15_000;
const DEFAULT_NETWORK_RETRIES = 1;
/** The SDK's longest wait before a retry (its MAX_NETWORK_RETRY_DELAY_SEC). */
const SDK_RETRY_WAIT_MS = 5_000;

/**
 * How long a transfer call may still be under way after it started: every try timing out, with the SDK's waits
 * between them. Until then a payout with no transfer at the processor may yet get one.
 */
export const longestTransferMs = (timeoutMs = DEFAULT_TIMEOUT_MS, maxNetworkRetries = DEFAULT_NETWORK_RETRIES) =>
  (maxNetworkRetries + 1) * timeoutMs + maxNetworkRetries * SDK_RETRY_WAIT_MS;

/**
 * The processor through its own SDK; `apiUrl` points the SDK at another host (a loopback stand-in in tests).
 * The SDK is imported here, not at start, so a server without a card processor never holds it in memory.
 */
export async function stripeProcessor(cfg: {
  secretKey: string;
  webhookSecret?: string;
  apiUrl?: string;
  /** How long one API call may take before its outcome counts as unknown. */
  timeoutMs?: number;
  /** The SDK's own retries of a call that got no answer (same idempotency key); 1 by default. */
  maxNetworkRetries?: number;
}): Promise<CardProcessor> {
  const { default: StripeSdk } = await import('stripe');
  const api = cfg.apiUrl ? new URL(cfg.apiUrl) : undefined;
  const stripe = new StripeSdk(cfg.secretKey, {
    maxNetworkRetries: cfg.maxNetworkRetries ?? DEFAULT_NETWORK_RETRIES,
    timeout: cfg.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    telemetry: false,
    ...(api && {
      host: api.hostname,
      port: api.port || (api.protocol === 'https:' ? 443 : 80),
      protocol: api.protocol === 'http:' ? 'http' : 'https',
    }),
  });
  return {
    async createCheckout(input) {
      const session = await call(() =>
        stripe.checkout.sessions.create({
          mode: 'payment',
          client_reference_id: input.accountId,
          metadata: { account_id: input.accountId, pack_id: input.packId },
          line_items: [
            {
              quantity: 1,
              price_data: {
                currency: input.currency,
                unit_amount: input.amountCents,
                product_data: { name: input.name },
              },
            },
          ],
          success_url: input.successUrl,
          cancel_url: input.cancelUrl,
        }),
      );
      if (!session.url) throw new ProcessorUnavailable('card processor returned a session without a URL');
      return { id: session.id, url: session.url };
    },

    parseEvent(rawBody, signature) {
      if (!cfg.webhookSecret) throw new InvalidEventSignature('webhook secret not configured');
      let event: Stripe.Event;
      try {
        event = stripe.webhooks.constructEvent(rawBody, signature, cfg.webhookSecret);
      } catch (err) {
        throw new InvalidEventSignature((err as Error).message);
      }
      return readEvent(event);
    },

    async createPayoutAccount({ accountId, email }) {
      const acct = await call(() =>
        stripe.accounts.create({ type: 'express', email, metadata: { account_id: accountId } }),
      );
      return acct.id;
    },

    async onboardingLink(payoutAccountId, returnUrl, refreshUrl) {
      const link = await call(() =>
        stripe.accountLinks.create({
          account: payoutAccountId,
          type: 'account_onboarding',
          return_url: returnUrl,
          refresh_url: refreshUrl,
        }),
      );
      return link.url;
    },

    async payoutsEnabled(payoutAccountId) {
      const acct = await call(() => stripe.accounts.retrieve(payoutAccountId));
      return acct.payouts_enabled === true && acct.details_submitted === true;
    },

    async transfer({ destination, amountCents, settlementId }) {
      try {
        const t = await stripe.transfers.create(
          {
            amount: amountCents,
            currency: 'usd',
            destination,
            transfer_group: settlementId,
            metadata: { settlement_id: settlementId },
          },
          { idempotencyKey: settlementId },
        );
        return toTransfer(t);
      } catch (err) {
        const status = (err as { statusCode?: number; type?: string }).statusCode;
        const type = (err as { type?: string }).type;
        // A 4xx other than 409 (the same key in flight) and 429 means the processor did not act.
        if (
          status &&
          status >= 400 &&
          status < 500 &&
          status !== 409 &&
          status !== 429 &&
          type !== 'StripeIdempotencyError'
        )
          throw new TransferRefused(`card processor refused the transfer: ${(err as Error).message}`);
        throw new TransferOutcomeUnknown(`card processor did not say whether it paid: ${(err as Error).message}`);
      }
    },

    async transfersFor(settlementId, legacyDestination) {
      const page = await call(() => stripe.transfers.list({ transfer_group: settlementId, limit: 100 }));
      if (page.data.length || !legacyDestination) return page.data.map(toTransfer);
      const found: ProcessorTransfer[] = [];
      let seen = 0;
      await call(() =>
        stripe.transfers.list({ destination: legacyDestination, limit: 100 }).autoPagingEach((t) => {
          if (t.metadata?.settlement_id === settlementId) found.push(toTransfer(t));
          return ++seen < 1_000;
        }),
      );
      return found;
    },

    async retrieveTransfer(transferId) {
      try {
        return toTransfer(await stripe.transfers.retrieve(transferId));
      } catch (err) {
        if ((err as { statusCode?: number }).statusCode === 404) return null;
        throw new ProcessorUnavailable(`card processor: ${(err as Error).message}`);
      }
    },

    async allTransfers(max) {
      const out: ProcessorTransfer[] = [];
      await call(() =>
        stripe.transfers.list({ limit: 100 }).autoPagingEach((t) => {
          out.push(toTransfer(t));
          return out.length < max;
        }),
      );
      return out;
    },
  };
}

const toTransfer = (t: Stripe.Transfer): ProcessorTransfer => ({
  id: t.id,
  amountCents: t.amount,
  destination: typeof t.destination === 'string' ? t.destination : (t.destination?.id ?? ''),
  settlementId: t.transfer_group || t.metadata?.settlement_id || null,
  reversed: t.reversed === true,
  amountReversedCents: t.amount_reversed ?? 0,
});

const REINSTATED = 'charge.dispute.funds_reinstated';
const DISPUTE_EVENTS = new Set(['charge.dispute.created', 'charge.dispute.funds_withdrawn']);
/** An inquiry (retrieval request) withdraws no money; it closes or escalates to a chargeback. */
const isInquiry = (status: string | undefined) => status?.startsWith('warning_') ?? false;

/** A recorded refund or dispute event of one payment (processor_events). */
export interface RecordedReversal {
  event_id: string;
  type: string;
  dispute_id: string | null;
  reversed_cents: number | null;
}

/**
 * The cents the recorded refunds and disputes of one payment took back and keep: a charge's refunds are reported
 * cumulatively (the largest is the latest), and each dispute withdraws its own amount besides them (counted once
 * per dispute id, whether its chargeback's creation or its withdrawal announced it; an inquiry withdrew 0), unless a
 * reinstatement of that dispute for the same payment was recorded (it was won).
 */
export function reversedCents(recorded: ReadonlyArray<RecordedReversal>): number {
  const reinstated = new Set(recorded.filter((r) => r.type === REINSTATED && r.dispute_id).map((r) => r.dispute_id));
  let refunded = 0;
  const disputes = new Map<string, number>();
  for (const r of recorded) {
    const cents = Number(r.reversed_cents ?? 0);
    if (r.type === 'charge.refunded') refunded = Math.max(refunded, cents);
    else if (DISPUTE_EVENTS.has(r.type) && !reinstated.has(r.dispute_id)) {
      // Before migration 330 a dispute's id was not recorded: each such event is a dispute of its own.
      const key = r.dispute_id ?? `event:${r.event_id}`;
      disputes.set(key, Math.max(disputes.get(key) ?? 0, cents));
    }
  }
  let cents = refunded;
  for (const d of disputes.values()) cents += d;
  return cents;
}

/** Whether a withdrawal of `disputeId`'s money was recorded for this payment (an inquiry alone withdrew none). */
export const disputeRecorded = (recorded: ReadonlyArray<RecordedReversal>, disputeId: string) =>
  recorded.some((r) => DISPUTE_EVENTS.has(r.type) && r.dispute_id === disputeId && Number(r.reversed_cents) > 0);

/** Whether a reinstatement of `disputeId` other than event `eventId` was recorded. */
export const reinstatedBefore = (recorded: ReadonlyArray<RecordedReversal>, disputeId: string, eventId: string) =>
  recorded.some((r) => r.type === REINSTATED && r.dispute_id === disputeId && r.event_id !== eventId);

const id = z.string().min(1).max(255);
const EventEnvelope = z.object({
  id,
  type: z.string().min(1).max(255),
  data: z.object({ object: z.object({}).loose() }),
});
const SessionObject = z.object({
  id,
  payment_status: z.string().min(1),
  amount_total: z.number().nullable(),
  currency: z.string().nullable(),
  payment_intent: z
    .union([id, z.object({ id }).loose()])
    .nullable()
    .optional(),
});
// A charge or dispute outside a checkout may have no payment intent: acknowledged, matched to no purchase.
const ChargeObject = z.object({
  payment_intent: z.union([id, z.object({ id }).loose()]).nullable(),
  amount: z.number().int().nonnegative(),
  amount_refunded: z.number().int().nonnegative(),
});
const DisputeObject = z.object({
  id: id.optional(),
  payment_intent: z.union([id, z.object({ id }).loose()]).nullable(),
  amount: z.number().int().nonnegative(),
  status: z.string().optional(),
});
const ReinstatedDispute = DisputeObject.extend({ id, status: z.string() });
const WithdrawnDispute = DisputeObject.extend({ id });
const idOf = (v: string | { id: string }) => (typeof v === 'string' ? v : v.id);

/** The event's meaning for credits, after checking its shape; MalformedEvent when the shape is wrong. */
export function readEvent(raw: unknown): ProcessorEvent {
  const envelope = EventEnvelope.safeParse(raw);
  if (!envelope.success) throw new MalformedEvent(`malformed event: ${envelope.error.issues[0]!.message}`);
  const { id: eventId, type, data } = envelope.data;
  const parse = <T>(schema: z.ZodType<T>): T => {
    const r = schema.safeParse(data.object);
    if (!r.success) {
      const issue = r.error.issues[0]!;
      throw new MalformedEvent(`malformed ${type} event: ${issue.path.join('.')}: ${issue.message}`);
    }
    return r.data;
  };
  const session = () => {
    const s = parse(SessionObject);
    return {
      id: s.id,
      paymentStatus: s.payment_status,
      amountTotal: s.amount_total,
      currency: s.currency,
      paymentIntent: s.payment_intent ? idOf(s.payment_intent) : null,
    };
  };
  switch (type) {
    case 'checkout.session.completed':
    case 'checkout.session.async_payment_succeeded':
      return { eventId, type, kind: 'session_completed', session: session() };
    case 'checkout.session.async_payment_failed':
    case 'checkout.session.expired':
      return { eventId, type, kind: 'session_failed', session: session() };
    case 'charge.refunded': {
      const c = parse(ChargeObject);
      return {
        eventId,
        type,
        kind: 'reversal',
        paymentIntent: c.payment_intent && idOf(c.payment_intent),
        reversedCents: c.amount_refunded,
        ofCents: c.amount,
        disputeId: null,
      };
    }
    case 'charge.dispute.created':
    case 'charge.dispute.funds_withdrawn': {
      const d = parse(type === 'charge.dispute.created' ? DisputeObject : WithdrawnDispute);
      const paymentIntent = d.payment_intent && idOf(d.payment_intent);
      // Withdrawn funds left whatever the status says; a created inquiry withdrew none (yet).
      if (type === 'charge.dispute.created' && isInquiry(d.status))
        return { eventId, type, kind: 'dispute_inquiry', paymentIntent, disputeId: d.id ?? null };
      return {
        eventId,
        type,
        kind: 'reversal',
        paymentIntent,
        reversedCents: d.amount,
        ofCents: null,
        disputeId: d.id ?? null,
      };
    }
    case REINSTATED: {
      const d = parse(ReinstatedDispute);
      // A lost dispute of a partly refunded payment gets the refunded part back: the refund already counted it.
      if (d.status !== 'won') return { eventId, type, kind: 'other' };
      return {
        eventId,
        type,
        kind: 'dispute_reinstated',
        paymentIntent: d.payment_intent && idOf(d.payment_intent),
        disputeId: d.id,
      };
    }
    default:
      return { eventId, type, kind: 'other' };
  }
}
