-- The money behind an account's unlock credits: a credit unlock books at most its share of it, so a contributor's
-- share comes out of money that was paid (one credit unlocks a learning of any price). Credits bought before this
-- migration are valued at the least any credit was sold for (the Pro pack's $100 / 1,500, rounded down).
ALTER TABLE credit_balances ADD COLUMN unlock_value_micro INTEGER NOT NULL DEFAULT 0 CHECK (unlock_value_micro >= 0);
UPDATE credit_balances SET unlock_value_micro = unlocks * 66666;
