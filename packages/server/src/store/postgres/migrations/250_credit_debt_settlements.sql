-- from SQLite 250_credit_debt_settlements.sql: what a later purchase paid of its account's credit debt: the debt's money kept out of the new pack's credit value,
-- with the credits that money would have bought withheld. Outstanding debt = credit_debts less these.
CREATE TABLE credit_debt_settlements (
  id TEXT PRIMARY KEY,                                  -- dbs_…
  account_id TEXT NOT NULL REFERENCES accounts (id),
  purchase_id TEXT NOT NULL UNIQUE REFERENCES purchases (id),
  unlocks INTEGER NOT NULL CHECK (unlocks >= 0),       -- debt unlocks it settled
  withheld_unlocks INTEGER NOT NULL CHECK (withheld_unlocks >= 0),
  withheld_queries INTEGER NOT NULL CHECK (withheld_queries >= 0),
  amount_micro BIGINT NOT NULL CHECK (amount_micro > 0),
  created_at BIGINT NOT NULL
);
CREATE INDEX credit_debt_settlements_account ON credit_debt_settlements (account_id);
