-- from SQLite 330_won_disputes.sql: each dispute event records its dispute's id, so a reinstatement (a won dispute)
-- undoes only a dispute recorded for the same payment, once; the debt the dispute made is cancelled here.
-- Outstanding debt = credit_debts less credit_debt_settlements less these.
ALTER TABLE processor_events ADD COLUMN dispute_id TEXT;
CREATE TABLE credit_debt_cancellations (
  id TEXT PRIMARY KEY,                                  -- dbc_…
  account_id TEXT NOT NULL REFERENCES accounts (id),
  purchase_id TEXT NOT NULL REFERENCES purchases (id),
  event_id TEXT NOT NULL UNIQUE,                        -- the reinstatement
  unlocks INTEGER NOT NULL CHECK (unlocks >= 0),
  queries INTEGER NOT NULL CHECK (queries >= 0),
  amount_micro BIGINT NOT NULL CHECK (amount_micro >= 0),
  created_at BIGINT NOT NULL
);
CREATE INDEX credit_debt_cancellations_account ON credit_debt_cancellations (account_id);
CREATE INDEX credit_debt_cancellations_purchase ON credit_debt_cancellations (purchase_id);
