-- The x402 authorization (its nonce) a payment-identifier was reserved for: when the request holding the
-- reservation ended without booking or releasing it (its instance killed mid-settlement), a retry under the id
-- finds that claim, and is served what it settled or, if nothing moved, pays anew. NULL on rows from before.
ALTER TABLE payment_identifiers ADD COLUMN nonce TEXT;
-- When the request holding the reservation gave up on an unknown settlement outcome: the next send takes it up at once.
ALTER TABLE payment_identifiers ADD COLUMN abandoned_at INTEGER;
