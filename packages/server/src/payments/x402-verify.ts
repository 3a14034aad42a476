import type { DecodedPayment } from './x402-payload.js';
import { CHAIN_ID, NETWORK, NETWORK_V1, USDC } from './x402-requirements.js';

/** Clock difference tolerated between the buyer and this server on validBefore. */
export const CLOCK_SKEW_SECONDS = 30;
/** validBefore must leave at least this long for settlement. */
const MIN_VALIDITY_SECONDS = 6;
/** Half the order of secp256k1: USDC refuses a signature whose s is above it (the malleable twin of a valid one). */
const HALF_N = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;

export interface Expected {
  priceMicro: number;
  payTo: string;
  maxTimeoutSeconds: number;
}

/** Why a payment was refused; the message is what the 402 body's `error` says. */
export class PaymentRejected extends Error {}

/**
 * Offline verification of an exact-scheme USDC authorization: scheme, network, asset, recipient,
 * amount, time window and the EIP-712 TransferWithAuthorization signature over the USDC domain.
 * Returns the payer. No chain access: balance and on-chain nonce state are the settler's to check.
 */
export async function verifyAuthorization(
  p: DecodedPayment,
  expected: Expected,
  nowMs: number,
): Promise<`0x${string}`> {
  // Loaded at the first payment, not at start: viem is large and most servers never see a payment.
  const [{ authorizationTypes }, { isAddressEqual, parseSignature, verifyTypedData }] = await Promise.all([
    import('@x402/evm'),
    import('viem'),
  ]);
  const a = p.authorization;
  if (p.scheme !== 'exact') throw new PaymentRejected(`unsupported scheme ${p.scheme}; this server accepts exact`);
  if (p.network !== NETWORK && p.network !== NETWORK_V1)
    throw new PaymentRejected(`wrong network ${p.network}; pay on ${NETWORK}`);
  if (p.asset !== undefined && p.asset.toLowerCase() !== USDC.asset.toLowerCase())
    throw new PaymentRejected('wrong asset; pay in USDC');
  if (!isAddressEqual(a.to as `0x${string}`, expected.payTo as `0x${string}`))
    throw new PaymentRejected('authorization is not addressed to payTo');
  if (BigInt(a.value) !== BigInt(expected.priceMicro)) {
    throw new PaymentRejected(`authorization value ${a.value} does not equal the price ${expected.priceMicro}`);
  }
  const now = BigInt(Math.floor(nowMs / 1000));
  if (BigInt(a.validAfter) > now) throw new PaymentRejected('authorization is not valid yet');
  if (BigInt(a.validBefore) < now + BigInt(MIN_VALIDITY_SECONDS))
    throw new PaymentRejected('authorization has expired');
  if (BigInt(a.validBefore) > now + BigInt(expected.maxTimeoutSeconds + CLOCK_SKEW_SECONDS)) {
    throw new PaymentRejected('authorization is valid for longer than maxTimeoutSeconds');
  }
  let valid = false;
  try {
    valid = await verifyTypedData({
      address: a.from as `0x${string}`,
      domain: {
        name: USDC.name,
        version: USDC.version,
        chainId: CHAIN_ID,
        verifyingContract: USDC.asset as `0x${string}`,
      },
      types: authorizationTypes,
      primaryType: 'TransferWithAuthorization',
      message: {
        from: a.from as `0x${string}`,
        to: a.to as `0x${string}`,
        value: BigInt(a.value),
        validAfter: BigInt(a.validAfter),
        validBefore: BigInt(a.validBefore),
        nonce: a.nonce as `0x${string}`,
      },
      signature: p.signature,
    });
  } catch {
    valid = false;
  }
  if (!valid)
    throw new PaymentRejected('invalid signature: it does not recover to the authorization\u2019s from address');
  // viem recovers either form; the token, and so any settlement, takes only the low-s one.
  if (BigInt(parseSignature(p.signature).s) > HALF_N)
    throw new PaymentRejected('invalid signature: the signature is not in the canonical (low-s) form USDC accepts');
  return a.from.toLowerCase() as `0x${string}`;
}
