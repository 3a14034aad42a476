import { decodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentPayload } from '@x402/core/types';
import { z } from '@axle/sdk';

const hex = (bytes?: number) =>
  z.string().regex(bytes ? new RegExp(`^0x[0-9a-fA-F]{${bytes * 2}}$`) : /^0x[0-9a-fA-F]+$/);
const uint = z.string().regex(/^\d{1,78}$/, 'decimal integer');

const Authorization = z.object({
  from: hex(20),
  to: hex(20),
  value: uint,
  validAfter: uint,
  validBefore: uint,
  nonce: hex(32),
});
export type Authorization = z.infer<typeof Authorization>;

const ExactPayload = z.object({ signature: hex(), authorization: Authorization });

const V1 = z.object({ x402Version: z.literal(1), scheme: z.string(), network: z.string(), payload: ExactPayload });
const V2 = z.object({
  x402Version: z.literal(2),
  accepted: z.object({
    scheme: z.string(),
    network: z.string(),
    asset: z.string(),
    amount: z.string(),
    payTo: z.string(),
    maxTimeoutSeconds: z.number(),
    extra: z.record(z.string(), z.unknown()).optional(),
  }),
  payload: ExactPayload,
  extensions: z.record(z.string(), z.unknown()).optional(),
});

/** A payment header, decoded and normalised across x402 v1 and v2. */
export interface DecodedPayment {
  version: 1 | 2;
  scheme: string;
  network: string;
  /** v2 only: the requirement the client says it accepted. */
  asset?: string;
  payTo?: string;
  /** v2 only: the extensions the client echoed and filled in (payment-identifier…). */
  extensions?: Record<string, unknown>;
  authorization: Authorization;
  signature: `0x${string}`;
}

export class PaymentFormatError extends Error {}

/** Decodes an X-Payment or PAYMENT-SIGNATURE value (base64 JSON, v1 or v2 exact-scheme EVM payload). */
export function decodePayment(header: string): DecodedPayment {
  let json: unknown;
  try {
    json = decodePaymentSignatureHeader(header.trim());
  } catch {
    throw new PaymentFormatError('payment header is not base64-encoded JSON');
  }
  const v1 = V1.safeParse(json);
  if (v1.success) {
    const { scheme, network, payload } = v1.data;
    return {
      version: 1,
      scheme,
      network,
      authorization: payload.authorization,
      signature: payload.signature as `0x${string}`,
    };
  }
  const v2 = V2.safeParse(json);
  if (v2.success) {
    const { accepted, payload, extensions } = v2.data;
    return {
      version: 2,
      scheme: accepted.scheme,
      network: accepted.network,
      asset: accepted.asset,
      payTo: accepted.payTo,
      extensions,
      authorization: payload.authorization,
      signature: payload.signature as `0x${string}`,
    };
  }
  throw new PaymentFormatError('payment header is not an x402 exact-scheme payload (v1 or v2)');
}

/** The payload in v2 form for a facilitator, whatever version the client sent. */
export function toV2Payload(p: DecodedPayment, accepted: PaymentPayload['accepted']): PaymentPayload {
  return { x402Version: 2, accepted, payload: { signature: p.signature, authorization: p.authorization } };
}
