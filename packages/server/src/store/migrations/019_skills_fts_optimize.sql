-- Catalogs imported before the import step merged the FTS index into one segment (see
-- SqliteSkillsRepository.replaceCatalog): merge theirs once.
INSERT INTO skills_fts (skills_fts) VALUES ('optimize');
