import { createHash } from 'node:crypto';
import type { PaymentPayload } from '@x402/core/types';
import {
  PAYMENT_IDENTIFIER,
  declarePaymentIdentifierExtension,
  extractAndValidatePaymentIdentifier,
} from '@x402/extensions/payment-identifier';
import { type DecodedPayment, PaymentFormatError } from './x402-payload.js';

// The x402 payment-identifier extension (coinbase/x402 specs/extensions/payment_identifier.md): a client-chosen id
// makes a payment idempotent. Same id and same payment: the answer it bought; same id, another payment: 409.

/** The 402's declaration: ids are welcome, not required. */
export const paymentIdentifierDeclaration = () => ({ [PAYMENT_IDENTIFIER]: declarePaymentIdentifierExtension(false) });

/** The payment's id, if the client sent one; a malformed one is refused like any malformed payment. */
export function paymentIdentifierOf(p: DecodedPayment): string | undefined {
  const { id, validation } = extractAndValidatePaymentIdentifier({ extensions: p.extensions } as PaymentPayload);
  if (!validation.valid) {
    throw new PaymentFormatError(`invalid payment-identifier: ${(validation.errors ?? []).join('; ')}`);
  }
  return id ?? undefined;
}

/**
 * What makes two payments "the same payment" for an id: the learning, the payer and the recipient (the asset and
 * network are verified to be the one USDC on Base), not the nonce, validity window or signature, which a client
 * re-signing a retry changes.
 */
export function paymentFingerprint(learningId: string, payer: string, p: DecodedPayment): string {
  const terms = [learningId, payer.toLowerCase(), p.authorization.to.toLowerCase()];
  return createHash('sha256').update(terms.join('\n')).digest('hex');
}
