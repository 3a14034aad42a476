-- A holder's withdrawals, newest first (GET /contributor/{wallet}/settlements, anonymous): without an index led by
-- holder, each request read and sorted every account's settlements.
CREATE INDEX settlements_holder ON settlements (holder, created_at DESC, id);
