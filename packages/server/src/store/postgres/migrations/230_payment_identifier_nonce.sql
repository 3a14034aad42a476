-- from SQLite 230_payment_identifier_nonce.sql: the x402 authorization (its nonce) a payment-identifier was
-- reserved for, so a retry finds the claim of a request that ended without booking or releasing the id.
ALTER TABLE payment_identifiers ADD COLUMN nonce TEXT;
-- When the request holding the reservation gave up on an unknown settlement outcome: the next send takes it up at once.
ALTER TABLE payment_identifiers ADD COLUMN abandoned_at BIGINT;
