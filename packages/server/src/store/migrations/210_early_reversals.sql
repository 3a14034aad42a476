-- A refund or dispute the processor delivers before the checkout completion it reverses (delivery order is not
-- promised) finds no purchase yet: each reversal event records its payment intent and the cents it reverses, so
-- the purchase, once credited, takes back what was already reversed.
ALTER TABLE processor_events ADD COLUMN payment_intent TEXT;
ALTER TABLE processor_events ADD COLUMN reversed_cents INTEGER;
CREATE INDEX processor_events_payment_intent ON processor_events (payment_intent) WHERE payment_intent IS NOT NULL;
