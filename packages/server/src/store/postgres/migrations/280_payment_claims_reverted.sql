-- from SQLite 280_payment_claims_reverted.sql: a payment claim may be `reverted`: its settlement transaction did not
-- pay and its request was refused, but the authorization is unused and still valid, so anyone holding it may yet
-- submit it. It stays open for reconciliation (settled once used and paid payTo, failed once expired).
ALTER TABLE payment_claims DROP CONSTRAINT payment_claims_state_check;
ALTER TABLE payment_claims ADD CONSTRAINT payment_claims_state_check
  CHECK (state IN ('verified', 'submitted', 'reverted', 'settled', 'failed'));
DROP INDEX payment_claims_open;
CREATE INDEX payment_claims_open ON payment_claims (state, created_at)
  WHERE state IN ('verified', 'submitted', 'reverted');
