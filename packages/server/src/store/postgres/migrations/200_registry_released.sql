-- from SQLite 200_registry_released.sql: an operator's release of a held version (1: searchable while its
-- text stays the same; a sync bringing other text clears it).
ALTER TABLE registry_servers ADD COLUMN released INTEGER NOT NULL DEFAULT 0;
