-- When a send of the settlement's payout last started (its request, or a reconciliation pass): the pass fails a
-- withheld card payout only once no send can still be under way. Older rows count from created_at.
ALTER TABLE settlements ADD COLUMN sent_at BIGINT;
