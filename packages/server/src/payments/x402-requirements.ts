import { encodePaymentRequiredHeader } from '@x402/core/http';
import type { PaymentRequired as PaymentRequiredV2, PaymentRequirements } from '@x402/core/types';
import { declareDiscoveryExtension } from '@x402/extensions/bazaar';
import type { z } from '@axle/sdk';
import type { PaymentRequirement } from '@axle/sdk';

/** Base mainnet, the spec's network, as CAIP-2 and as the v1 name some clients send. */
export const NETWORK = 'eip155:8453';
export const NETWORK_V1 = 'base';
export const CHAIN_ID = 8453;
/**
 * USDC on Base with its EIP-712 domain: @x402/evm's getDefaultAsset(NETWORK), written out so that starting the
 * server does not load that package and viem under it (a test holds the two equal).
 */
export const USDC = {
  asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  name: 'USD Coin',
  version: '2',
  decimals: 6,
  symbol: 'USDC',
} as const;
/** How long a signed authorization may stay valid. */
export const MAX_TIMEOUT_SECONDS = 300;

/** What one unlock costs and where the payment goes. */
export interface PaymentTerms {
  priceMicro: number;
  /** The URL being paid for (GET /knowledge/{id}). */
  resource: string;
  description: string;
  /** Platform wallet, or the router contract in non-custodial mode. */
  payTo: string;
  router?: string;
}

const extra = (t: PaymentTerms): Record<string, unknown> => ({
  name: USDC.name,
  version: USDC.version,
  ...(t.router && { router: t.router }),
});

/** The spec's accepts[] item (v1 field names, CAIP-2 network). */
export function requirementV1(t: PaymentTerms): z.infer<typeof PaymentRequirement> {
  return {
    scheme: 'exact',
    network: NETWORK,
    maxAmountRequired: String(t.priceMicro),
    resource: t.resource,
    description: t.description,
    mimeType: 'application/json',
    payTo: t.payTo,
    maxTimeoutSeconds: MAX_TIMEOUT_SECONDS,
    asset: USDC.asset,
    extra: extra(t),
  };
}

/** The same requirement in x402 v2 form (`amount`), as settled through a facilitator. */
export function requirementV2(t: PaymentTerms): PaymentRequirements {
  return {
    scheme: 'exact',
    network: NETWORK,
    asset: USDC.asset,
    amount: String(t.priceMicro),
    payTo: t.payTo,
    maxTimeoutSeconds: MAX_TIMEOUT_SECONDS,
    extra: extra(t),
  };
}

/**
 * The Bazaar discovery declaration: GET with the learning id as path parameter, answering
 * LearningFull JSON, so facilitators that catalog paid resources can list the learning.
 */
export function discoveryExtension(learningId: string): Record<string, unknown> {
  const declared = declareDiscoveryExtension({
    pathParams: { id: learningId },
    pathParamsSchema: { properties: { id: { type: 'string', pattern: '^lrn_[A-Za-z0-9]+$' } }, required: ['id'] },
    output: {
      example: { id: learningId, title: '…', body: '…', _revenue: { amount_paid_usd: 0.08 } },
      schema: {
        properties: { id: { type: 'string' }, body: { type: 'string' }, _revenue: { type: 'object' } },
        required: ['id', 'body'],
      },
    },
  });
  // The HTTP method is filled in per route by @x402's own server; this server declares it itself.
  for (const ext of Object.values(declared)) (ext.info.input as { method?: string }).method = 'GET';
  return declared;
}

/**
 * The v2 PAYMENT-REQUIRED header value: base64 JSON of the requirements, error, discovery extension and the
 * other extensions the server declares.
 */
export function paymentRequiredHeader(
  t: PaymentTerms,
  learningId: string,
  error?: string,
  extensions: Record<string, unknown> = {},
): string {
  const body: PaymentRequiredV2 = {
    x402Version: 2,
    ...(error && { error }),
    resource: { url: t.resource, description: t.description, mimeType: 'application/json' },
    accepts: [requirementV2(t)],
    extensions: { ...discoveryExtension(learningId), ...extensions },
  };
  return encodePaymentRequiredHeader(body);
}
