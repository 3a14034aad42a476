-- Withdrawal signatures already spent: one row per signed {wallet, timestamp}, so a signature pays out once.
-- Keyed by the signed message, not the signature bytes, which a third party can re-encode (ECDSA malleability).
-- Rows older than the signature freshness window can no longer be replayed and are pruned.
CREATE TABLE withdrawal_proofs (
  wallet TEXT NOT NULL,                -- lower-case
  signed_timestamp INTEGER NOT NULL,   -- Unix ms, the signed timestamp
  used_at INTEGER NOT NULL,            -- Unix ms
  PRIMARY KEY (wallet, signed_timestamp)
);
CREATE INDEX withdrawal_proofs_signed ON withdrawal_proofs (signed_timestamp);
