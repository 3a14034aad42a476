-- A payment claim may be `reverted`: its settlement transaction did not pay and its request was refused, but the
-- authorization is unused and still valid, so anyone holding it may yet submit it. It stays open for reconciliation
-- (settled once used and paid payTo, failed once expired). SQLite cannot alter a CHECK: the table is rebuilt.
CREATE TABLE payment_claims_280 (
  chain_id INTEGER NOT NULL,
  payer TEXT NOT NULL,
  nonce TEXT NOT NULL,
  learning_id TEXT NOT NULL,
  unlock_id TEXT,
  created_at INTEGER NOT NULL,
  state TEXT NOT NULL DEFAULT 'verified'
    CHECK (state IN ('verified', 'submitted', 'reverted', 'settled', 'failed')),
  tx_hash TEXT,
  reason TEXT,
  payload TEXT,
  updated_at INTEGER,
  PRIMARY KEY (chain_id, payer, nonce)
);
INSERT INTO payment_claims_280 (chain_id, payer, nonce, learning_id, unlock_id, created_at, state, tx_hash, reason,
  payload, updated_at)
SELECT chain_id, payer, nonce, learning_id, unlock_id, created_at, state, tx_hash, reason, payload, updated_at
FROM payment_claims;
DROP TABLE payment_claims;
ALTER TABLE payment_claims_280 RENAME TO payment_claims;
CREATE INDEX payment_claims_unlock ON payment_claims (unlock_id);
CREATE INDEX payment_claims_open ON payment_claims (state, created_at)
  WHERE state IN ('verified', 'submitted', 'reverted');
