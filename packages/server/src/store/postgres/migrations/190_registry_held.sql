-- from SQLite 190_registry_held.sql: the catalog screen's verdict on each synced server version (the rules
-- that hold it, comma separated; empty when it passed; NULL before it was screened); the generation moves
-- and the last success is forgotten so instances re-import and the scheduled sync screens at once.
ALTER TABLE registry_servers ADD COLUMN held TEXT;
UPDATE registry_sync_state SET generation = generation + 1, last_success_at = NULL;
