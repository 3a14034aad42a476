-- from SQLite 240_registry_sync_pending.sql: the changes to what is searchable that the applied transactions of
-- an unfinished sync made, counted and announced by the next sync to finish.
ALTER TABLE registry_sync_state ADD COLUMN pending_added INTEGER NOT NULL DEFAULT 0;
ALTER TABLE registry_sync_state ADD COLUMN pending_updated INTEGER NOT NULL DEFAULT 0;
ALTER TABLE registry_sync_state ADD COLUMN pending_hidden INTEGER NOT NULL DEFAULT 0;
-- A sync's transactions look up the searchable version of the names they write, of every source.
CREATE INDEX registry_servers_name ON registry_servers (name);
