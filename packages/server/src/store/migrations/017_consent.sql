-- Extraction consent: every grant and revocation is a new row (append-only); the latest row is in force.
CREATE TABLE consent_records (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  account_id TEXT NOT NULL REFERENCES accounts (id),
  action TEXT NOT NULL CHECK (action IN ('grant', 'revoke')),
  consent_version TEXT NOT NULL,       -- ISO date of the consent text
  via TEXT NOT NULL,                   -- consent (POST /extract/consent) or settings (PATCH /account/settings)
  recorded_at INTEGER NOT NULL,        -- Unix ms
  audit_ref TEXT NOT NULL
);
CREATE INDEX consent_records_account ON consent_records (account_id, id);

CREATE TRIGGER consent_records_no_update BEFORE UPDATE ON consent_records
BEGIN
  SELECT RAISE(ABORT, 'consent_records is append-only');
END;
CREATE TRIGGER consent_records_no_delete BEFORE DELETE ON consent_records
BEGIN
  SELECT RAISE(ABORT, 'consent_records is append-only');
END;

-- Per-account preferences; absent row = defaults (mode off).
CREATE TABLE account_settings (
  account_id TEXT PRIMARY KEY REFERENCES accounts (id),
  autonomous_extraction_mode TEXT NOT NULL CHECK (autonomous_extraction_mode IN ('off', 'automatic', 'manual')),
  updated_at INTEGER NOT NULL
);
