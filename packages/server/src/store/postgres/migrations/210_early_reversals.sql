-- from SQLite 210_early_reversals.sql: each refund or dispute event records its payment intent and the cents it
-- reverses, so one delivered before the checkout completion is applied when the purchase is credited.
ALTER TABLE processor_events ADD COLUMN payment_intent TEXT;
ALTER TABLE processor_events ADD COLUMN reversed_cents BIGINT;
CREATE INDEX processor_events_payment_intent ON processor_events (payment_intent) WHERE payment_intent IS NOT NULL;
