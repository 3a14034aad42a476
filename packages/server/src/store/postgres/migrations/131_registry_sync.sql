-- from SQLite 131_registry_sync.sql: servers synced from an MCP registry (v0.1 API), one row per name
-- and version; per source the newest updatedAt seen; named leases for the one instance that syncs.
-- (SQLite 130, the tools column of the lexical index, has no twin: here tools join the 'D' class of
-- skills.fts, filled when the catalog is imported.)
CREATE TABLE registry_servers (
  source TEXT NOT NULL,
  name TEXT NOT NULL,
  version TEXT NOT NULL,
  is_latest INTEGER NOT NULL,
  status TEXT NOT NULL,
  status_message TEXT,
  updated_at TEXT NOT NULL,
  data TEXT NOT NULL,
  PRIMARY KEY (source, name, version)
);
CREATE INDEX registry_servers_latest ON registry_servers (is_latest, status);

CREATE TABLE registry_sync_state (
  source TEXT PRIMARY KEY,
  newest_updated_at TEXT,
  last_success_at BIGINT,
  generation BIGINT NOT NULL DEFAULT 0
);

CREATE TABLE leases (
  name TEXT PRIMARY KEY,
  holder TEXT NOT NULL,
  expires_at BIGINT NOT NULL
);
