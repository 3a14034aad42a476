-- from SQLite 340_repaid_debt_freed.sql: the part of a won dispute's debt a later purchase already paid, freed once.
ALTER TABLE credit_debt_cancellations ADD COLUMN repaid_unlocks INTEGER NOT NULL DEFAULT 0;
ALTER TABLE credit_debt_cancellations ADD COLUMN repaid_micro BIGINT NOT NULL DEFAULT 0;
