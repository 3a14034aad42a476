-- Sign-in links. Only the SHA-256 of the token is kept; used_at makes each link single-use.
CREATE TABLE magic_links (
  token_hash TEXT PRIMARY KEY,         -- hex SHA-256 of the random token
  email TEXT NOT NULL,
  next_path TEXT,                      -- same-origin path the landing page continues to (device approval)
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  used_at INTEGER
);
CREATE INDEX magic_links_expires ON magic_links (expires_at);
