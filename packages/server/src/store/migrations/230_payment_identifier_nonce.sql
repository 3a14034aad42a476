-- The x402 authorization (its nonce) a payment-identifier was reserved for: when the request holding the
-- reservation ended without booking or releasing it (its instance killed mid-settlement), a retry under the id
-- finds that claim, and is served what it settled or, if nothing moved, pays anew. NULL on rows from before.
ALTER TABLE payment_identifiers ADD COLUMN nonce TEXT;
