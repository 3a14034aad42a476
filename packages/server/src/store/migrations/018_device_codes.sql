-- RFC 8628 device authorization requests. The device_code is never stored: rows are found by its
-- SHA-256, and the key minted on approval is sealed to the device_code (only its public half,
-- public_key, is kept), then erased once delivered.
CREATE TABLE device_codes (
  device_code_hash TEXT PRIMARY KEY,   -- hex SHA-256 of the device_code
  user_code TEXT NOT NULL UNIQUE,      -- canonical: 8 letters, uppercase, no dash
  client_name TEXT NOT NULL,
  public_key TEXT NOT NULL,            -- base64url X25519 public key derived from the device_code
  status TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'denied', 'delivered')),
  interval_s INTEGER NOT NULL,         -- grows by 5 on every slow_down
  last_polled_at INTEGER,              -- Unix ms
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  account_id TEXT REFERENCES accounts (id),
  key_id TEXT,                         -- the API key minted on approval
  sealed_key TEXT,                     -- that key, sealed to the device_code; NULL once delivered
  decided_at INTEGER
);
CREATE INDEX device_codes_expires ON device_codes (expires_at);
