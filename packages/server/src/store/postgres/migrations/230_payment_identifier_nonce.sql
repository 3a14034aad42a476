-- from SQLite 230_payment_identifier_nonce.sql: the x402 authorization (its nonce) a payment-identifier was
-- reserved for, so a retry finds the claim of a request that ended without booking or releasing the id.
ALTER TABLE payment_identifiers ADD COLUMN nonce TEXT;
