-- Shared rate-limit counters (every server instance sees the same ones). A window opens at the
-- first hit of a bucket and lasts the limit's period; the next hit after it ends opens a new one.
CREATE TABLE rate_limits (
  bucket TEXT PRIMARY KEY,             -- e.g. magic-link:email:<sha256>, magic-link:ip:<addr>
  window_start INTEGER NOT NULL,       -- Unix ms
  count INTEGER NOT NULL
);
CREATE INDEX rate_limits_window ON rate_limits (window_start);
