-- An operator's release of a version the catalog screen held (`axle-server catalog release <name>`): 1 makes it
-- searchable as long as its text stays the same; a sync that brings other text for it clears the release, and
-- the new text is screened again.
ALTER TABLE registry_servers ADD COLUMN released INTEGER NOT NULL DEFAULT 0;
