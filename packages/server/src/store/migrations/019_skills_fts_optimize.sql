-- Catalogs imported before the import step merged the FTS index into one segment (see
-- replaceCatalog in store/skills.ts): merge theirs once.
INSERT INTO skills_fts (skills_fts) VALUES ('optimize');
