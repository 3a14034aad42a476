import { HTTPFacilitatorClient } from '@x402/core/http';
import { type PaymentRequirements, SettleError, VerifyError } from '@x402/core/types';
import { type Clock, systemClock } from '../clock.js';
import type { Authorization, DecodedPayment } from './x402-payload.js';
import { toV2Payload } from './x402-payload.js';
import { NETWORK } from './x402-requirements.js';
import { CLOCK_SKEW_SECONDS, PaymentRejected } from './x402-verify.js';

/**
 * Which way this server settles x402 payments:
 * - `offline`: no facilitator and no chain access; authorizations are verified offline only and their
 *   contributor shares stay awaiting_settlement (development);
 * - `chain`: the server submits transferWithAuthorization itself (AXLE_RPC_URL + AXLE_SETTLEMENT_KEY);
 * - `facilitator`: an x402 facilitator settles (AXLE_FACILITATOR_URL), checked on chain when AXLE_RPC_URL is set.
 */
export type SettlementMode = 'offline' | 'chain' | 'facilitator';

/** The settlement went through (`settled`), or was sent and its outcome is not known yet (`submitted`). */
export interface SettleOutcome {
  state: 'settled' | 'submitted';
  txHash: string;
}

/** Where a submitted settlement stands now (reconciliation). */
export type SettlementStatus =
  | { state: 'settled'; txHash: string }
  | { state: 'failed'; reason: string; txHash?: string }
  | { state: 'submitted'; txHash?: string };

/**
 * A settlement that moved nothing (reverted on chain, refused, expired). `open`: its transaction did not pay, but the
 * authorization is unused and still valid, and public (in that transaction's calldata, held by a facilitator), so
 * anyone may yet submit it: refused to the request, not final.
 */
export class SettlementFailed extends PaymentRejected {
  constructor(
    message: string,
    readonly txHash?: string,
    readonly open = false,
  ) {
    super(message);
  }
}

/**
 * The settler could not be reached or failed without judging the payment. Nothing was charged, unless
 * `maybeSent`: a facilitator's settle failed after it may have broadcast (the chain says which).
 */
export class SettlementUnavailable extends Error {
  constructor(
    message: string,
    readonly maybeSent = false,
  ) {
    super(message);
  }
}

/**
 * When (ms, our clock) an unused authorization may be judged expired: its validBefore plus the skew tolerated at
 * verification, as much again for late blocks (the token checks validBefore against the block's timestamp).
 */
export const expiryJudgedAt = (a: Authorization) => (Number(a.validBefore) + 2 * CLOCK_SKEW_SECONDS) * 1000;

/** What reconciliation knows of a claimed payment. */
export interface OpenPayment {
  authorization: Authorization;
  signature: `0x${string}`;
  txHash: string | null;
  /** A request may still be sending it: where it stands is read, nothing is submitted again. */
  inFlight?: boolean;
}

export interface Settler {
  readonly mode: SettlementMode;
  /** Whether status() reads the chain (chain mode, or a facilitator checked through AXLE_RPC_URL). */
  readonly reconciles: boolean;
  /**
   * A second opinion before settling (the facilitator's POST /verify). Throws PaymentRejected (refused for the
   * payment's own reasons) or SettlementUnavailable (not judged: unreachable, a 5xx, an error of its own).
   */
  verify(p: DecodedPayment, requirement: PaymentRequirements): Promise<void>;
  /**
   * Settles before the content is served. `onSubmit` is awaited with the transaction hash before the
   * transaction is broadcast (when the hash is known beforehand), so a crash after it leaves a record.
   * Throws SettlementFailed (nothing moved), PaymentRejected or SettlementUnavailable (nothing sent).
   */
  settle(
    p: DecodedPayment,
    requirement: PaymentRequirements,
    onSubmit: (txHash: string) => Promise<void>,
  ): Promise<SettleOutcome>;
  /** Reconciles a submitted settlement against the chain; `submitted` while it is still unknown. */
  status(p: OpenPayment, nowMs: number): Promise<SettlementStatus>;
}

/** Reads the chain to confirm settlements (payments/chain-settlement.ts). */
export interface ChainReader {
  /** Waits (bounded) for the receipt: settled when it moved the authorized funds to payTo, failed when it did not. */
  outcome(txHash: string, a: Authorization, waitMs: number): Promise<SettlementStatus>;
  status(p: OpenPayment, nowMs: number): Promise<SettlementStatus>;
}

/**
 * A settlement transaction that did not pay (`reason`, from ChainReader.outcome): where its authorization stands on
 * chain decides. Used by another transaction that paid payTo: settled by that one. Used without paying, or expired:
 * failed. Unused and still valid: failed `open`. `message` words the failure. The chain unreadable: an unknown outcome.
 */
export async function afterUnpaid(
  chain: ChainReader,
  p: OpenPayment & { txHash: string },
  reason: string,
  message: (reason: string) => string,
  nowMs: number,
): Promise<SettleOutcome> {
  const s = await chain.status(p, nowMs).catch((err: Error) => {
    throw new SettlementUnavailable(`chain unavailable after a settlement that did not pay: ${err.message}`, true);
  });
  if (s.state === 'settled') return s;
  if (s.state === 'failed') throw new SettlementFailed(message(s.reason), s.txHash ?? p.txHash);
  throw new SettlementFailed(message(reason), p.txHash, true);
}

/** No facilitator, no chain: nothing is ever settled; shares stay awaiting_settlement. */
export const offlineSettler: Settler = {
  mode: 'offline',
  reconciles: false,
  async verify() {},
  async settle() {
    throw new SettlementUnavailable('this server does not settle payments');
  },
  async status(p) {
    return { state: 'submitted', txHash: p.txHash ?? undefined };
  },
};

/** A facilitator's reason for failing that is its own (x402's unexpected_verify_error, unexpected_settle_error). */
const ownFault = (reason: string | undefined) => reason?.startsWith('unexpected_') ?? false;

/**
 * An x402 facilitator through @x402/core's client, over Node's fetch (undici): GET /supported once
 * (until it answers), to refuse payments the facilitator cannot settle, then POST /verify and POST /settle.
 * With a chain reader the facilitator's answer is checked on chain: a transaction hash that reverted or
 * did not pay the authorized amount to payTo is a failed settlement, whatever the facilitator said (open while the
 * authorization is unused and valid: the facilitator holds it), and a failure it answers is an unknown outcome
 * (maybeSent) until the chain shows the authorization used or expired.
 */
export function facilitatorSettler(
  url: string,
  opts: { timeoutMs?: number; chain?: ChainReader; receiptWaitMs?: number; clock?: Clock } = {},
): Settler {
  const clock = opts.clock ?? systemClock;
  const client = new HTTPFacilitatorClient({ url, timeoutMs: opts.timeoutMs ?? 15_000 });
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
      // The facilitator judged the payment (a 4xx with a reason of the payment's): that is a refusal, not an outage.
      const reason =
        err instanceof VerifyError ? err.invalidReason : err instanceof SettleError ? err.errorReason : undefined;
      if ((err instanceof VerifyError || err instanceof SettleError) && err.statusCode < 500 && !ownFault(reason))
        throw new PaymentRejected(`facilitator refused the payment: ${err.message}`);
      throw new SettlementUnavailable(`facilitator ${what} failed: ${(err as Error).message}`, what === 'settle');
    }
  };
  return {
    mode: 'facilitator',
    reconciles: opts.chain !== undefined,
    async verify(p, requirement) {
      if (!(await call('supported', supportsExactOnBase)))
        throw new SettlementUnavailable(`facilitator does not settle exact payments on ${NETWORK}`);
      const r = await call('verify', () => client.verify(toV2Payload(p, requirement), requirement));
      if (!r.isValid && ownFault(r.invalidReason))
        throw new SettlementUnavailable(`facilitator verify failed: ${r.invalidReason}`);
      if (!r.isValid) throw new PaymentRejected(`facilitator refused the payment: ${r.invalidReason ?? 'invalid'}`);
    },
    async settle(p, requirement, onSubmit) {
      let r: Awaited<ReturnType<typeof client.settle>>;
      try {
        r = await call('settle', () => client.settle(toV2Payload(p, requirement), requirement));
        if (!r.success && ownFault(r.errorReason))
          throw new SettlementUnavailable(`facilitator settle failed: ${r.errorReason}`, true);
        if (!r.success) throw new SettlementFailed(`settlement failed: ${r.errorReason ?? 'unknown reason'}`);
      } catch (err) {
        // A facilitator that answers failure may have broadcast the transfer all the same (its receipt wait ran out,
        // it lost a race), and still holds the authorization: with the chain to read, the outcome is unknown until
        // the authorization is used or expires there. Without, its word is all there is.
        if (opts.chain && err instanceof PaymentRejected) throw new SettlementUnavailable(err.message, true);
        throw err;
      }
      if (!opts.chain) return { state: 'settled', txHash: r.transaction };
      await onSubmit(r.transaction);
      const checked = await opts.chain.outcome(r.transaction, p.authorization, opts.receiptWaitMs ?? 20_000);
      if (checked.state === 'failed')
        return afterUnpaid(
          opts.chain,
          { ...p, txHash: r.transaction },
          checked.reason,
          (why) => `facilitator reported success but ${why}`,
          clock.now(),
        );
      return { state: checked.state, txHash: r.transaction };
    },
    async status(p, nowMs) {
      return opts.chain ? opts.chain.status(p, nowMs) : { state: 'submitted', txHash: p.txHash ?? undefined };
    },
  };
}
