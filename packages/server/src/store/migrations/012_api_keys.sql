-- API keys: the raw key (axl_…) is shown once; only its SHA-256 is stored.
CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,                 -- key_…
  account_id TEXT NOT NULL REFERENCES accounts (id),
  key_hash TEXT UNIQUE NOT NULL,       -- hex SHA-256 of the raw key
  name TEXT NOT NULL,
  scopes TEXT NOT NULL,                -- space-separated: search contribute account
  created_at INTEGER NOT NULL,
  last_used_at INTEGER,                -- refreshed at most once a minute
  revoked_at INTEGER
);
CREATE INDEX api_keys_account ON api_keys (account_id, created_at);
