-- A sync applies what it read in several transactions: the changes to what is searchable that its applied ones
-- made (servers added, updated, hidden) wait here until the sync finishes, so a sync that was interrupted after
-- some of them still has its changes counted and announced by the next one to finish.
ALTER TABLE registry_sync_state ADD COLUMN pending_added INTEGER NOT NULL DEFAULT 0;
ALTER TABLE registry_sync_state ADD COLUMN pending_updated INTEGER NOT NULL DEFAULT 0;
ALTER TABLE registry_sync_state ADD COLUMN pending_hidden INTEGER NOT NULL DEFAULT 0;
-- A sync's transactions look up the searchable version of the names they write, of every source.
CREATE INDEX registry_servers_name ON registry_servers (name);
