import type Stripe from 'stripe';

/** A checkout.session.completed event, as far as credits care. */
export interface CompletedCheckout {
  eventId: string;
  sessionId: string;
  accountId: string | null;
  packId: string | null;
  amountCents: number | null;
  paid: boolean;
}

export type ProcessorEvent =
  | { type: 'checkout.session.completed'; checkout: CompletedCheckout }
  | { type: string; eventId: string };

/** The signature header did not verify against the webhook secret, or the payload is not an event. */
export class InvalidEventSignature extends Error {}
/** The processor's API could not be reached or refused the call. */
export class ProcessorUnavailable extends Error {}

/** What the server asks of the card processor: hosted checkout, signed events, connected payout accounts. */
export interface CardProcessor {
  createCheckout(input: {
    accountId: string;
    packId: string;
    name: string;
    amountCents: number;
    successUrl: string;
    cancelUrl: string;
  }): Promise<{
    id: string;
    url: string;
  }>;
  /** Verifies the signature over the raw body (throws InvalidEventSignature) and reads the event. */
  parseEvent(rawBody: Buffer, signature: string): ProcessorEvent;
  createPayoutAccount(input: { accountId: string; email: string }): Promise<string>;
  /** A hosted onboarding link for the payout account. */
  onboardingLink(payoutAccountId: string, returnUrl: string, refreshUrl: string): Promise<string>;
  /** Whether onboarding is complete enough to receive payouts. */
  payoutsEnabled(payoutAccountId: string): Promise<boolean>;
  /** Moves money to the payout account; returns the processor's transfer id. */
  transfer(input: { payoutAccountId: string; amountCents: number; settlementId: string }): Promise<string>;
}

const call = async <T>(fn: () => Promise<T>): Promise<T> => {
  try {
    return await fn();
  } catch (err) {
    throw new ProcessorUnavailable(`card processor: ${(err as Error).message}`);
  }
};

/**
 * The processor through its own SDK; `apiUrl` points the SDK at another host (a loopback stand-in in tests).
 * The SDK is imported here, not at start, so a server without a card processor never holds it in memory.
 */
export async function stripeProcessor(cfg: {
  secretKey: string;
  webhookSecret?: string;
  apiUrl?: string;
}): Promise<CardProcessor> {
  const { default: StripeSdk } = await import('stripe');
  const api = cfg.apiUrl ? new URL(cfg.apiUrl) : undefined;
  const stripe = new StripeSdk(cfg.secretKey, {
    maxNetworkRetries: 1,
    timeout: 15_000,
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
              price_data: { currency: 'usd', unit_amount: input.amountCents, product_data: { name: input.name } },
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
      if (event.type !== 'checkout.session.completed') return { type: event.type, eventId: event.id };
      const s = event.data.object;
      return {
        type: event.type,
        checkout: {
          eventId: event.id,
          sessionId: s.id,
          accountId: s.metadata?.account_id ?? s.client_reference_id ?? null,
          packId: s.metadata?.pack_id ?? null,
          amountCents: s.amount_total ?? null,
          paid: s.payment_status === 'paid' || s.payment_status === 'no_payment_required',
        },
      };
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

    async transfer({ payoutAccountId, amountCents, settlementId }) {
      const t = await call(() =>
        stripe.transfers.create(
          {
            amount: amountCents,
            currency: 'usd',
            destination: payoutAccountId,
            metadata: { settlement_id: settlementId },
          },
          { idempotencyKey: settlementId },
        ),
      );
      return t.id;
    },
  };
}
