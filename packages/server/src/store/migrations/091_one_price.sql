-- One price (issue 22): current_price_micro is the price search results show, the 402 asks and unlocks charge;
-- override_price_micro is the price the contributor set on submit. unlock_price_micro repeated that setting
-- (or the 0.05 default) under a third name and is dropped. A learning with an override costs the override.
UPDATE learnings SET current_price_micro = MIN(50000000, MAX(50000, override_price_micro))
WHERE override_price_micro IS NOT NULL;
ALTER TABLE learnings DROP COLUMN unlock_price_micro;
-- The price before the last reprice: an x402 payment for it is accepted while the 402 that showed it is valid.
ALTER TABLE learnings ADD COLUMN prior_price_micro INTEGER;
