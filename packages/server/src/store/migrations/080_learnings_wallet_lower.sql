-- GET /contributor/{wallet} matches wallets case-insensitively (lower(contributor_wallet) = ?): without an index
-- on the expression every request scanned the whole learnings table.
CREATE INDEX learnings_wallet_lower ON learnings (lower(contributor_wallet));
