-- The tools MCP servers list, one row each, so lexical search ranks a server by its best tool: in skills_fts a
-- server's hundreds of tools make its row so long that BM25 scores even its own name low. A tool's rowid is its
-- skill's rowid x 2^20 plus its index in the list. The catalog fingerprint is forgotten, so the next start
-- re-imports the catalog and fills the table.
CREATE VIRTUAL TABLE skill_tools_fts USING fts5 (name, description, tokenize = 'porter unicode61');
DELETE FROM meta WHERE key = 'catalog_fingerprint';
