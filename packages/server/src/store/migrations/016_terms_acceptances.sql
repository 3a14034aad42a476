-- Clickwrap acceptances, one row per account and terms version; never updated or deleted.
CREATE TABLE terms_acceptances (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  account_id TEXT NOT NULL REFERENCES accounts (id),
  version TEXT NOT NULL,
  accepted_at INTEGER NOT NULL,        -- Unix ms
  via TEXT NOT NULL,                   -- jwt or key
  audit_ref TEXT NOT NULL,             -- aud_… entry recording it
  UNIQUE (account_id, version)
);

CREATE TRIGGER terms_acceptances_no_update BEFORE UPDATE ON terms_acceptances
BEGIN
  SELECT RAISE(ABORT, 'terms_acceptances is append-only');
END;
CREATE TRIGGER terms_acceptances_no_delete BEFORE DELETE ON terms_acceptances
BEGIN
  SELECT RAISE(ABORT, 'terms_acceptances is append-only');
END;
