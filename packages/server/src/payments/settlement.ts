import { HTTPFacilitatorClient } from '@x402/core/http';
import { type PaymentRequirements, SettleError, VerifyError } from '@x402/core/types';
import { type DecodedPayment, toV2Payload } from './x402-payload.js';
import { NETWORK } from './x402-requirements.js';
import { PaymentRejected } from './x402-verify.js';

/** How a verified authorization was settled: by a facilitator (tx hash) or recorded locally on the ledger. */
export interface SettleResult {
  path: 'local' | 'facilitator';
  txHash: string | null;
}

/** The settler could not be reached or failed without judging the payment; nothing was charged. */
export class SettlementUnavailable extends Error {}

export interface Settler {
  readonly path: SettleResult['path'];
  /** A second opinion before settling (the facilitator's POST /verify); throws PaymentRejected. */
  verify(p: DecodedPayment, requirement: PaymentRequirements): Promise<void>;
  /** Settles before the content is served; throws PaymentRejected or SettlementUnavailable. */
  settle(p: DecodedPayment, requirement: PaymentRequirements): Promise<SettleResult>;
}

/**
 * Without a facilitator the authorization, verified offline, is recorded in the ledger with
 * settlement path `local`: no transfer happens on chain until the operator submits it.
 */
export const localSettler: Settler = {
  path: 'local',
  async verify() {},
  async settle() {
    return { path: 'local', txHash: null };
  },
};

/**
 * An x402 facilitator through @x402/core's client, over Node's fetch (undici): GET /supported once
 * (until it answers), to refuse payments the facilitator cannot settle, then POST /verify and POST /settle.
 */
export function facilitatorSettler(url: string, timeoutMs = 15_000): Settler {
  const client = new HTTPFacilitatorClient({ url, timeoutMs });
  let supported: Promise<boolean> | undefined;
  const supportsExactOnBase = () => {
    supported ??= client.getSupported().then(
      (r) => r.kinds.some((k) => k.scheme === 'exact' && k.network === NETWORK),
      (err) => {
        supported = undefined;
        throw err;
      },
    );
    return supported;
  };
  const call = async <T>(what: string, fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      // The facilitator judged the payment (a 4xx with a reason): that is a refusal, not an outage.
      if (err instanceof VerifyError || err instanceof SettleError)
        throw new PaymentRejected(`facilitator refused the payment: ${err.message}`);
      throw new SettlementUnavailable(`facilitator ${what} failed: ${(err as Error).message}`);
    }
  };
  return {
    path: 'facilitator',
    async verify(p, requirement) {
      if (!(await call('supported', supportsExactOnBase)))
        throw new SettlementUnavailable(`facilitator does not settle exact payments on ${NETWORK}`);
      const r = await call('verify', () => client.verify(toV2Payload(p, requirement), requirement));
      if (!r.isValid) throw new PaymentRejected(`facilitator refused the payment: ${r.invalidReason ?? 'invalid'}`);
    },
    async settle(p, requirement) {
      const r = await call('settle', () => client.settle(toV2Payload(p, requirement), requirement));
      if (!r.success) throw new PaymentRejected(`settlement failed: ${r.errorReason ?? 'unknown reason'}`);
      return { path: 'facilitator', txHash: r.transaction };
    },
  };
}
