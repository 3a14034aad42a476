import { z } from '../zod.js';
import { DateTime } from './common.js';

/** One way to pay, as x402 describes it. Amounts are USDC micro-units as a decimal string. */
export const PaymentRequirement = z
  .object({
    scheme: z.string().describe('payment scheme, e.g. exact'),
    network: z.string().describe('CAIP-2 network id, eip155:8453'),
    maxAmountRequired: z
      .string()
      .regex(/^\d+$/, 'integer USDC micro-units')
      .describe('USDC micro-units: $0.05 is "50000"'),
    resource: z.string(),
    description: z.string(),
    mimeType: z.string(),
    payTo: z.string().describe('platform wallet, or the router contract in non-custodial mode'),
    maxTimeoutSeconds: z.number().int().positive(),
    asset: z.string().describe('USDC token contract'),
    extra: z.record(z.string(), z.unknown()).optional().describe('scheme hints; in router mode carries `router`'),
  })
  .passthrough()
  .openapi('PaymentRequirement');

export const PaymentOptions = z
  .object({
    api_key: z.object({
      header: z.string(),
      format: z.string(),
      obtain: z.string(),
      how_to_authenticate: z.string(),
    }),
    x402_payment: z.object({
      header: z.string(),
      price_usd: z.number().min(0),
      description: z.string(),
      protocol: z.string(),
    }),
    reset_at: DateTime.nullable()
      .optional()
      .describe(
        'credits-exhausted shape only. Purchased credits never expire, so this is null unless a free allowance renews',
      ),
  })
  .openapi('PaymentOptions');

export const CreditBalance = z
  .object({
    queries_remaining: z.number().int().min(0),
    unlocks_remaining: z.number().int().min(0),
  })
  .describe('Not specified by the contract beyond its presence: the key account’s remaining credits')
  .openapi('CreditBalance');

/**
 * The 402 body, in three shapes: no credentials (accepts merged with the options envelope),
 * credits exhausted (error, credits, options.reset_at) and failed payment (error and accepts).
 */
export const PaymentRequired = z
  .object({
    x402Version: z.number().int(),
    accepts: z.array(PaymentRequirement),
    error: z.string().optional(),
    message: z.string().optional(),
    options: PaymentOptions.optional(),
    credits: CreditBalance.optional(),
  })
  .openapi('PaymentRequired');
export type PaymentRequired = z.infer<typeof PaymentRequired>;
