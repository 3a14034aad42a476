import {
  createPublicClient,
  createWalletClient,
  defineChain,
  encodeFunctionData,
  type Hex,
  http,
  isAddressEqual,
  keccak256,
  parseAbi,
  parseEventLogs,
  parseSignature,
  type TransactionReceipt,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { type Clock, systemClock } from '../clock.js';
import type { Authorization } from './x402-payload.js';
import {
  afterUnpaid,
  type ChainReader,
  expiryJudgedAt,
  type SettlementStatus,
  type Settler,
  SettlementUnavailable,
} from './settlement.js';
import { CHAIN_ID, USDC } from './x402-requirements.js';
import { PaymentRejected } from './x402-verify.js';

/** The EIP-3009 surface of USDC (FiatTokenV2) this server calls and reads. */
export const eip3009Abi = parseAbi([
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
  'function authorizationState(address authorizer, bytes32 nonce) view returns (bool)',
  'event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)',
  'event Transfer(address indexed from, address indexed to, uint256 value)',
]);

/** How far back reconciliation looks for the block that used an authorization (about 5.5 h on Base). */
const LOG_LOOKBACK_BLOCKS = 10_000n;
const RECEIPT_POLL_MS = 200;

export interface ChainOptions {
  rpcUrl: string;
  /** Per RPC call. */
  rpcTimeoutMs?: number;
}

const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

function clientsFor(o: ChainOptions) {
  const chain = defineChain({
    id: CHAIN_ID,
    name: 'Base',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [o.rpcUrl] } },
  });
  const transport = http(o.rpcUrl, { timeout: o.rpcTimeoutMs ?? 10_000, retryCount: 0 });
  return { chain, transport, pub: createPublicClient({ chain, transport }) };
}

/**
 * True when the receipt is a successful transaction in which USDC used exactly this authorization and
 * moved its value from the payer to its payee. A used nonce alone is not enough: the payer may sign a
 * second authorization with the same nonce to someone else and spend it first. Nor is a matching transfer
 * anywhere in the transaction: one transaction (the payer's own contract) may use several authorizations, one
 * paying payTo and the others paying someone else. USDC logs an authorization's transfer right after its
 * AuthorizationUsed, so that transfer is the next log.
 */
function paid(receipt: TransactionReceipt, a: Authorization): boolean {
  if (receipt.status !== 'success') return false;
  const logs = parseEventLogs({
    abi: eip3009Abi,
    logs: receipt.logs.filter((l) => isAddressEqual(l.address, USDC.asset)),
  });
  return logs.some((l, i) => {
    const next = logs[i + 1];
    return (
      l.eventName === 'AuthorizationUsed' &&
      isAddressEqual(l.args.authorizer, a.from as Hex) &&
      l.args.nonce.toLowerCase() === a.nonce.toLowerCase() &&
      next?.eventName === 'Transfer' &&
      next.logIndex === l.logIndex + 1 &&
      isAddressEqual(next.args.from, a.from as Hex) &&
      isAddressEqual(next.args.to, a.to as Hex) &&
      next.args.value === BigInt(a.value)
    );
  });
}

/** Confirms settlements on chain through an RPC endpoint (used alone to check a facilitator's answers). */
export function chainReader(o: ChainOptions): ChainReader {
  const { pub } = clientsFor(o);

  const receiptOf = async (hash: string) => {
    try {
      return await pub.getTransactionReceipt({ hash: hash as Hex });
    } catch (err) {
      if ((err as Error).name === 'TransactionReceiptNotFoundError') return null;
      throw err;
    }
  };

  const judge = (receipt: TransactionReceipt, a: Authorization): SettlementStatus =>
    paid(receipt, a)
      ? { state: 'settled', txHash: receipt.transactionHash }
      : {
          state: 'failed',
          txHash: receipt.transactionHash,
          reason:
            receipt.status === 'success'
              ? `transaction ${receipt.transactionHash} did not transfer the authorized amount to payTo`
              : `transaction ${receipt.transactionHash} reverted`,
        };

  /** The transaction that used the authorization, from its AuthorizationUsed log. */
  async function usedBy(a: Authorization): Promise<string | undefined> {
    // Not viem's cached height (up to its polling interval old): a transaction mined since would be outside the range.
    const latest = await pub.getBlockNumber({ cacheTime: 0 });
    const logs = await pub.getContractEvents({
      address: USDC.asset,
      abi: eip3009Abi,
      eventName: 'AuthorizationUsed',
      args: { authorizer: a.from as Hex, nonce: a.nonce as Hex },
      fromBlock: latest > LOG_LOOKBACK_BLOCKS ? latest - LOG_LOOKBACK_BLOCKS : 0n,
      toBlock: latest,
    });
    return logs[0]?.transactionHash ?? undefined;
  }

  /**
   * True once the authorization can never be used: our clock is past expiryJudgedAt, and
   * the chain's latest block is timestamped at or past it (the token refuses it from then on, and later blocks are
   * later) with the nonce still unused at that block.
   */
  async function expiredUnused(a: Authorization, nowMs: number): Promise<boolean> {
    if (expiryJudgedAt(a) > nowMs) return false;
    const validBefore = BigInt(a.validBefore);
    const block = await pub.getBlock({ blockTag: 'latest' });
    if (block.timestamp < validBefore) return false;
    const used = await pub.readContract({
      address: USDC.asset,
      abi: eip3009Abi,
      functionName: 'authorizationState',
      args: [a.from as Hex, a.nonce as Hex],
      blockNumber: block.number,
    });
    return !used;
  }

  return {
    async outcome(txHash, a, waitMs) {
      const until = Date.now() + waitMs;
      for (;;) {
        try {
          const r = await receiptOf(txHash);
          if (r) return judge(r, a);
        } catch {
          // An RPC hiccup while waiting is not an outcome: keep waiting until the bound.
        }
        if (Date.now() >= until) return { state: 'submitted', txHash };
        await delay(Math.min(RECEIPT_POLL_MS, Math.max(0, until - Date.now())));
      }
    },
    async status(p, nowMs) {
      const a = p.authorization;
      const mined = p.txHash ? await receiptOf(p.txHash) : null;
      if (mined && paid(mined, a)) return { state: 'settled', txHash: mined.transactionHash };
      const used = await pub.readContract({
        address: USDC.asset,
        abi: eip3009Abi,
        functionName: 'authorizationState',
        args: [a.from as Hex, a.nonce as Hex],
      });
      if (used) {
        // Used by another transaction (a resubmission, the payer, a facilitator): it counts only if it paid us.
        const hash = await usedBy(a);
        const r = hash ? await receiptOf(hash) : null;
        if (r) return judge(r, a);
        return { state: 'failed', reason: 'the authorization was used or canceled without paying payTo' };
      }
      // Unused: whatever our transaction did, the authorization can still be submitted by anyone until it expires.
      if (await expiredUnused(a, nowMs))
        return { state: 'failed', reason: 'the authorization expired before it was settled' };
      return { state: 'submitted', txHash: p.txHash ?? undefined };
    },
  };
}

/**
 * The server settles authorizations itself: transferWithAuthorization sent from the settlement key's
 * account, simulated first (an unfunded payer is refused before any gas is spent), signed locally so its
 * hash is recorded before broadcast, then its receipt awaited for at most `receiptWaitMs`; past that the
 * outcome is left to reconciliation (status), which also resubmits an authorization never mined.
 */
export function chainSettler(o: ChainOptions & { privateKey: Hex; receiptWaitMs: number; clock?: Clock }): Settler {
  const clock = o.clock ?? systemClock;
  const { chain, transport, pub } = clientsFor(o);
  const reader = chainReader(o);
  const account = privateKeyToAccount(o.privateKey);
  const wallet = createWalletClient({ account, chain, transport });
  // Transactions are signed and broadcast one at a time so their account nonces never collide.
  let queue: Promise<unknown> = Promise.resolve();
  let nextNonce: number | undefined;

  const callData = (a: Authorization, signature: Hex) => {
    const { v, r, s, yParity } = parseSignature(signature);
    return encodeFunctionData({
      abi: eip3009Abi,
      functionName: 'transferWithAuthorization',
      args: [
        a.from as Hex,
        a.to as Hex,
        BigInt(a.value),
        BigInt(a.validAfter),
        BigInt(a.validBefore),
        a.nonce as Hex,
        Number(v ?? BigInt(yParity + 27)),
        r,
        s,
      ],
    });
  };

  /** Simulates the call: a revert is the payment's fault (refused), anything else the chain's (unavailable). */
  async function simulate(data: Hex): Promise<bigint> {
    try {
      return await pub.estimateGas({ account, to: USDC.asset, data });
    } catch (err) {
      const message = (err as { details?: string; shortMessage?: string }).details ?? (err as Error).message;
      if (/revert/i.test(message)) throw new PaymentRejected(`settlement would revert: ${message}`);
      throw new SettlementUnavailable(`chain unavailable: ${message.split('\n')[0]}`);
    }
  }

  /** Signs and broadcasts; `onSigned` runs between the two. False when the broadcast failed (outcome unknown). */
  function send(
    data: Hex,
    gas: bigint,
    onSigned: (hash: string) => Promise<void>,
  ): Promise<{ hash: string; sent: boolean }> {
    const run = async () => {
      let signed: Hex;
      try {
        nextNonce ??= await pub.getTransactionCount({ address: account.address, blockTag: 'pending' });
        const request = await wallet.prepareTransactionRequest({
          to: USDC.asset,
          data,
          gas: (gas * 6n) / 5n,
          nonce: nextNonce,
          type: 'eip1559',
        });
        signed = await wallet.signTransaction(request);
      } catch (err) {
        nextNonce = undefined;
        throw new SettlementUnavailable(`chain unavailable: ${(err as Error).message.split('\n')[0]}`);
      }
      const hash = keccak256(signed);
      await onSigned(hash);
      try {
        await wallet.sendRawTransaction({ serializedTransaction: signed });
        nextNonce! += 1;
        return { hash, sent: true };
      } catch {
        nextNonce = undefined;
        return { hash, sent: false };
      }
    };
    const p = queue.then(run, run);
    queue = p.catch(() => undefined);
    return p;
  }

  return {
    mode: 'chain',
    reconciles: true,
    async verify() {},
    async settle(p, _requirement, onSubmit) {
      const data = callData(p.authorization, p.signature);
      const gas = await simulate(data);
      const { hash, sent } = await send(data, gas, onSubmit);
      // The provider refused or did not answer the broadcast: it may not be on its way at all, so nothing is served on
      // it; the claim stays submitted under its hash, and reconciliation sends it again or finds it mined.
      if (!sent)
        throw new SettlementUnavailable(`chain unavailable: transaction ${hash} may not have been broadcast`, true);
      const r = await reader.outcome(hash, p.authorization, o.receiptWaitMs);
      // Reverted, perhaps because another transaction used the same authorization first (and paid us).
      if (r.state === 'failed')
        return afterUnpaid(reader, { ...p, txHash: hash }, r.reason, (why) => `settlement failed: ${why}`, clock.now());
      return { state: r.state, txHash: r.txHash ?? hash };
    },
    async status(p, nowMs) {
      const s = await reader.status(p, nowMs);
      // Never submitted (the request ended before signing), or being sent by a request: nothing to send again.
      if (s.state !== 'submitted' || !p.txHash || p.inFlight) return s;
      if (await pub.getTransaction({ hash: p.txHash as Hex }).catch(() => null)) return s;
      // Unknown to the chain and still valid: submit it again (a crash before broadcast, a dropped transaction).
      const data = callData(p.authorization, p.signature);
      try {
        const gas = await pub.estimateGas({ account, to: USDC.asset, data });
        const { hash } = await send(data, gas, async () => {});
        return { state: 'submitted', txHash: hash };
      } catch {
        return s;
      }
    },
  };
}
