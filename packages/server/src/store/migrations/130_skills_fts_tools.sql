-- The lexical index gains a column for the tools an MCP server lists (names and descriptions), with
-- its own bm25() weight. FTS5 tables cannot add columns, so the index is rebuilt empty and the
-- catalog fingerprint forgotten: the next start re-imports the catalog into it.
DROP TABLE skills_fts;
CREATE VIRTUAL TABLE skills_fts USING fts5 (name, description, tags, category, tools, tokenize = 'porter unicode61');
DELETE FROM meta WHERE key = 'catalog_fingerprint';
