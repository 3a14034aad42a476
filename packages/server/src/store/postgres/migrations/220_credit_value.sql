-- from SQLite 220_credit_value.sql: the money behind an account's unlock credits, which a credit unlock books at
-- most its share of; credits bought before it are valued at the least any credit was sold for.
ALTER TABLE credit_balances ADD COLUMN unlock_value_micro BIGINT NOT NULL DEFAULT 0 CHECK (unlock_value_micro >= 0);
UPDATE credit_balances SET unlock_value_micro = unlocks * 66666;
