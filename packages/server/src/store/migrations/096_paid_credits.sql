-- Credits only for what was paid (issue 22). Each checkout session is recorded when it is created, so an event
-- is believed only for a session this server opened, at the amount and currency it asked for; each processor
-- event is recorded with what it did; a refund, failed payment or dispute takes the purchase's credits back and
-- records what was already spent as a debt.
CREATE TABLE checkout_sessions (
  id TEXT PRIMARY KEY,                                  -- the processor's session id (cs_…)
  account_id TEXT NOT NULL REFERENCES accounts (id),
  pack_id TEXT NOT NULL,
  amount_cents INTEGER NOT NULL CHECK (amount_cents > 0),
  currency TEXT NOT NULL,                               -- lower-case ISO code
  created_at INTEGER NOT NULL
);
CREATE INDEX checkout_sessions_account ON checkout_sessions (account_id, created_at);

CREATE TABLE processor_events (
  event_id TEXT PRIMARY KEY,                            -- evt_…: a replay finds its row
  type TEXT NOT NULL,
  outcome TEXT NOT NULL,                                -- credited, reversed, not_paid, amount_mismatch, …
  detail TEXT,                                          -- what did not match, as JSON
  purchase_id TEXT,
  received_at INTEGER NOT NULL
);

ALTER TABLE purchases ADD COLUMN payment_intent TEXT;               -- refunds and disputes name it
ALTER TABLE purchases ADD COLUMN reversed_cents INTEGER NOT NULL DEFAULT 0;   -- most refunded or disputed so far
ALTER TABLE purchases ADD COLUMN reversed_unlocks INTEGER NOT NULL DEFAULT 0; -- taken back or owed (debt)
ALTER TABLE purchases ADD COLUMN reversed_queries INTEGER NOT NULL DEFAULT 0;
ALTER TABLE purchases ADD COLUMN revoked_unlocks INTEGER NOT NULL DEFAULT 0;  -- of reversed_unlocks, taken back
CREATE INDEX purchases_payment_intent ON purchases (payment_intent) WHERE payment_intent IS NOT NULL;

-- Credits of a reversed purchase that were already spent: owed by the account.
CREATE TABLE credit_debts (
  id TEXT PRIMARY KEY,                                  -- dbt_…
  account_id TEXT NOT NULL REFERENCES accounts (id),
  purchase_id TEXT NOT NULL REFERENCES purchases (id),
  event_id TEXT NOT NULL,
  unlocks INTEGER NOT NULL CHECK (unlocks >= 0),
  queries INTEGER NOT NULL CHECK (queries >= 0),
  amount_micro INTEGER NOT NULL CHECK (amount_micro >= 0), -- the spent unlocks' share of what was paid
  created_at INTEGER NOT NULL
);
CREATE INDEX credit_debts_account ON credit_debts (account_id);
