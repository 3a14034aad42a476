-- x402 settlement state: a payment is money only once settled on chain. Each claimed authorization records
-- verified -> submitted (settlement tx hash known, outcome pending) -> settled (tx hash) or failed (reason).
-- The contributor share of an unlock paid by a payment that is not settled is not in any balance: it is
-- awaiting_settlement (an aggregate over unlocks joined here), credited by the settlement itself.
ALTER TABLE payment_claims ADD COLUMN state TEXT NOT NULL DEFAULT 'verified'
  CHECK (state IN ('verified', 'submitted', 'settled', 'failed'));
ALTER TABLE payment_claims ADD COLUMN tx_hash TEXT;
ALTER TABLE payment_claims ADD COLUMN reason TEXT;
-- The signed authorization as JSON ({authorization, signature}), so reconciliation can read or resubmit it.
ALTER TABLE payment_claims ADD COLUMN payload TEXT;
ALTER TABLE payment_claims ADD COLUMN updated_at INTEGER;

-- Payments a facilitator settled before this migration carry their tx hash on the unlock.
UPDATE payment_claims SET state = 'settled',
  tx_hash = (SELECT u.tx_hash FROM unlocks u WHERE u.id = payment_claims.unlock_id)
WHERE unlock_id IN (SELECT id FROM unlocks WHERE settlement_path IN ('facilitator', 'router') AND gross_micro > 0);
-- Repeat unlocks inside the 30-day window claimed their authorization but never settled it.
UPDATE payment_claims SET state = 'failed', reason = 'not settled: repeat unlock within the repeat window'
WHERE unlock_id IN (SELECT id FROM unlocks WHERE accrual_capped = 1);

CREATE INDEX payment_claims_unlock ON payment_claims (unlock_id);
-- The journal entry that credited an unlock's share (ledger:check, awaiting_settlement).
CREATE INDEX ledger_entries_ref ON ledger_entries (ref);
CREATE INDEX payment_claims_open ON payment_claims (state, created_at) WHERE state IN ('verified', 'submitted');
