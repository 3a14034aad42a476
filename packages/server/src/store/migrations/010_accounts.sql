-- People who signed in by magic link. The account is created on the first successful verification.
CREATE TABLE accounts (
  id TEXT PRIMARY KEY,                 -- acc_…
  email TEXT UNIQUE NOT NULL,          -- trimmed and lower-cased
  wallet TEXT,                         -- linked payout wallet, or NULL
  suspended INTEGER NOT NULL DEFAULT 0,
  deleted_at INTEGER,                  -- Unix ms; a deleted account can no longer authenticate
  created_at INTEGER NOT NULL          -- Unix ms
);
