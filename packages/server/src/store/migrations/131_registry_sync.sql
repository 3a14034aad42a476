-- Servers synced from an MCP registry (v0.1 API), one row per name and version as the registry
-- lists them. `data` is the registry's ServerDetail JSON; `status` active, deprecated or deleted;
-- `updated_at` the registry's updatedAt (RFC 3339). Only the latest, not deleted version of a name
-- becomes a skill.
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

-- Per source: the newest updatedAt seen (the next sync asks for changes since it, minus a margin)
-- and when a sync last succeeded.
CREATE TABLE registry_sync_state (
  source TEXT PRIMARY KEY,
  newest_updated_at TEXT,
  last_success_at INTEGER,
  generation INTEGER NOT NULL DEFAULT 0
);

-- Named leases: background work that one instance of several should run holds one until it expires.
CREATE TABLE leases (
  name TEXT PRIMARY KEY,
  holder TEXT NOT NULL,
  expires_at INTEGER NOT NULL
);
