-- A won dispute whose debt a later purchase already paid frees that part too: the credits the purchase withheld for it
-- come back. Recorded on the win's cancellation (repaid_*), so a later win of the same purchase does not free it again;
-- the account's outstanding debt does not read these (that debt was paid, not cancelled).
ALTER TABLE credit_debt_cancellations ADD COLUMN repaid_unlocks INTEGER NOT NULL DEFAULT 0;
ALTER TABLE credit_debt_cancellations ADD COLUMN repaid_micro INTEGER NOT NULL DEFAULT 0;
