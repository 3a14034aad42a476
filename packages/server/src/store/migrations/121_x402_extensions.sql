-- x402 extensions (issue 25).
-- payment-identifier: one row per client-chosen id, bound to the payment it first came with (payer and terms,
-- hashed) and, once booked, to the unlock it bought; a retry of the same payment answers that unlock again.
CREATE TABLE payment_identifiers (
  id TEXT PRIMARY KEY,                    -- the client's id, 16-128 of [A-Za-z0-9_-]
  fingerprint TEXT NOT NULL,              -- sha256 of learning, payer, payTo, asset, network
  learning_id TEXT NOT NULL,
  payer TEXT NOT NULL,
  revenue TEXT,                           -- the unlock's _revenue as JSON; NULL while the payment is in flight
  tx_hash TEXT,
  created_at INTEGER NOT NULL
);
-- sign-in-with-x: each server-issued nonce proves control once.
CREATE TABLE siwx_nonces (
  nonce TEXT PRIMARY KEY,
  wallet TEXT NOT NULL,
  expires_at INTEGER NOT NULL             -- Unix ms; rows past it are pruned
);
CREATE INDEX siwx_nonces_expires ON siwx_nonces (expires_at);
-- Keys this server signs with (offer/receipt receipts), shared by every instance; the first insert wins.
CREATE TABLE signing_keys (
  id TEXT PRIMARY KEY,
  private_jwk TEXT NOT NULL,
  public_jwk TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
