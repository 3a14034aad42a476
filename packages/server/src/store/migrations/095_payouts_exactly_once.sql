-- Card payouts exactly once (issue 22). A settlement's id is the idempotency key and transfer_group of its one
-- processor transfer; what it pays to is kept so a reconciliation resends the very same request.
ALTER TABLE settlements ADD COLUMN destination TEXT;        -- processor payout account (processor rail)
ALTER TABLE settlements ADD COLUMN failure_reason TEXT;     -- why a failed settlement failed
ALTER TABLE settlements ADD COLUMN reconciled_at INTEGER;   -- last time a reconciliation looked at it
ALTER TABLE settlements ADD COLUMN request_key TEXT;        -- the client's Idempotency-Key of the withdrawal request
-- A retried request (same holder, same Idempotency-Key) finds its settlement instead of opening another.
CREATE UNIQUE INDEX settlements_request_key ON settlements (holder, request_key) WHERE request_key IS NOT NULL;
CREATE INDEX settlements_unresolved ON settlements (created_at) WHERE status IN ('pending', 'processing_timeout');

-- Every processor transfer the server has seen (in a transfer's answer or a reconciliation), so
-- ledger:check can match each one to one confirmed settlement.
CREATE TABLE processor_transfers (
  transfer_id TEXT PRIMARY KEY,                 -- tr_…
  settlement_id TEXT,                           -- its transfer_group; NULL when it names none
  amount_micro INTEGER NOT NULL,
  destination TEXT NOT NULL,
  reversed INTEGER NOT NULL DEFAULT 0,
  seen_at INTEGER NOT NULL
);
CREATE INDEX processor_transfers_settlement ON processor_transfers (settlement_id);
