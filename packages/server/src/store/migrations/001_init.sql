-- Key-value facts about this installation (generated secrets, catalog fingerprint).
CREATE TABLE meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
