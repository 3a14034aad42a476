-- Hash-chained, append-only audit log. Each row stores the hash of the row before it (prev_hash),
-- so an edited or deleted row breaks the chain and `npm run audit:verify` reports it.
CREATE TABLE audit_log (
  id TEXT PRIMARY KEY,               -- aud_…, handed out as audit_ref
  seq INTEGER NOT NULL UNIQUE,       -- 1, 2, 3 … ; UNIQUE makes a racing second writer fail instead of forking the chain
  ts INTEGER NOT NULL,               -- Unix ms from the injected clock
  actor TEXT NOT NULL,               -- e.g. account:acc_…, admin, system
  action TEXT NOT NULL,              -- e.g. consent.granted, key.created, device.approved
  subject TEXT,                      -- what the action touched (account, key, learning id …)
  data TEXT NOT NULL,                -- canonical JSON object
  prev_hash TEXT NOT NULL,           -- hash of seq-1, or 64 zeros for the first entry
  hash TEXT NOT NULL                 -- SHA-256 over the canonical form of the fields above
);

-- Append-only inside the application; someone with the file can drop these, which the chain still catches.
CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
BEGIN
  SELECT RAISE(ABORT, 'audit_log is append-only');
END;
CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
BEGIN
  SELECT RAISE(ABORT, 'audit_log is append-only');
END;
