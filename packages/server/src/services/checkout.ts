import { ERROR_CODES, type Purchase, microToUsd, usdToMicro } from '@axle/sdk';
import type { Clock } from '../clock.js';
import { CREDIT_PACKS, creditPack } from '../domain/credit-packs.js';
import { DomainError } from '../domain/errors.js';
import { newId } from '../domain/ids.js';
import { type CardProcessor, InvalidEventSignature, ProcessorUnavailable } from '../payments/card-processor.js';
import { creditsStore, type PurchaseRow } from '../store/credits.js';
import type { Transactor } from '../store/queryable.js';
import { getAccount } from './accounts.js';
import type { RateLimiter } from './rate-limit.js';

/** Checkout sessions an account may open per hour. */
const CHECKOUTS_PER_HOUR = 20;

export interface CheckoutService {
  createSession(accountId: string, packId: string): Promise<{ url: string; session_id: string }>;
  /** Applies a signed processor event once; a replay answers already_processed. */
  handleEvent(
    rawBody: Buffer,
    signature: string,
  ): Promise<{ received: true; processed: boolean; already_processed: boolean; purchase_id: string | null }>;
  purchases(accountId: string): Promise<{ purchases: Purchase[]; total_spent_usd: number }>;
}

const toPurchase = (p: PurchaseRow): Purchase => ({
  id: p.id,
  pack_id: p.pack_id as Purchase['pack_id'],
  amount_usd: microToUsd(p.amount_micro),
  queries_added: p.queries_added,
  unlocks_added: p.unlocks_added,
  timestamp: new Date(p.created_at).toISOString(),
});

const notConfigured = () => new DomainError(ERROR_CODES.PROVIDER_NOT_CONFIGURED, 'checkout provider not configured');

export function createCheckoutService(deps: {
  db: Transactor;
  clock: Clock;
  baseUrl(): string;
  rateLimiter: RateLimiter;
  processor?: CardProcessor;
}): CheckoutService {
  const { db, clock, processor } = deps;
  return {
    async createSession(accountId, packId) {
      const pack = creditPack(packId);
      if (!pack)
        throw new DomainError(ERROR_CODES.VALIDATION, `Unknown credit pack: ${packId}`, { valid_packs: CREDIT_PACKS });
      if (!processor) throw notConfigured();
      await db.tx((q) =>
        deps.rateLimiter.take(`checkout:account:${accountId}`, { limit: CHECKOUTS_PER_HOUR, windowMs: 3_600_000 }, q),
      );
      try {
        const session = await processor.createCheckout({
          accountId,
          packId: pack.id,
          name: `Axle ${pack.name} credit pack (${pack.unlocks} unlocks, ${pack.queries} queries)`,
          amountCents: Math.round(pack.price_usd * 100),
          successUrl: `${deps.baseUrl()}/account/purchases?checkout=complete`,
          cancelUrl: `${deps.baseUrl()}/account/purchases?checkout=cancelled`,
        });
        return { url: session.url, session_id: session.id };
      } catch (err) {
        if (err instanceof ProcessorUnavailable)
          throw new DomainError(ERROR_CODES.PROVIDER_UNAVAILABLE, 'checkout provider unavailable');
        throw err;
      }
    },

    async handleEvent(rawBody, signature) {
      if (!processor) throw notConfigured();
      let event: ReturnType<CardProcessor['parseEvent']>;
      try {
        event = processor.parseEvent(rawBody, signature);
      } catch (err) {
        if (err instanceof InvalidEventSignature) throw new DomainError(ERROR_CODES.VALIDATION, 'invalid signature');
        throw err;
      }
      if (!('checkout' in event))
        return { received: true, processed: false, already_processed: false, purchase_id: null };
      const c = event.checkout;
      const pack = c.packId ? creditPack(c.packId) : undefined;
      if (!pack || !c.accountId)
        throw new DomainError(ERROR_CODES.VALIDATION, 'malformed event: no credit pack or account in its metadata');
      if (!c.paid) return { received: true, processed: false, already_processed: false, purchase_id: null };
      const accountId = c.accountId;
      return db.tx(async (q) => {
        if (!(await getAccount(q, accountId)))
          throw new DomainError(ERROR_CODES.VALIDATION, 'malformed event: unknown account');
        const now = clock.now();
        const row: PurchaseRow = {
          id: newId('pur'),
          account_id: accountId,
          pack_id: pack.id,
          amount_micro: c.amountCents === null ? usdToMicro(pack.price_usd) : c.amountCents * 10_000,
          queries_added: pack.queries,
          unlocks_added: pack.unlocks,
          checkout_session_id: c.sessionId,
          created_at: now,
        };
        if (!(await creditsStore.insertPurchase(q, row))) {
          const existing = await creditsStore.purchaseBySession(q, c.sessionId);
          return {
            received: true as const,
            processed: false,
            already_processed: true,
            purchase_id: existing?.id ?? null,
          };
        }
        await creditsStore.add(q, accountId, pack.unlocks, pack.queries, now);
        return { received: true as const, processed: true, already_processed: false, purchase_id: row.id };
      });
    },

    async purchases(accountId) {
      const [rows, total] = await Promise.all([
        creditsStore.purchases(db, accountId, 500),
        creditsStore.totalSpent(db, accountId),
      ]);
      return { purchases: rows.map(toPurchase), total_spent_usd: microToUsd(total) };
    },
  };
}
