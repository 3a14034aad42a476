-- from SQLite 390_skill_tools_fts.sql: the tools MCP servers list, one document each, so lexical search ranks a server
-- by its best tool (store/postgres/skills.ts): in the skills' tsvector a server's hundreds of tools make its document
-- so long that BM25 scores even its own name low. A tool's id is its skill's id, ':' and its index in the list; its
-- name as words is weight class A, its description B. skill_tool_terms holds their postings as skill_terms holds the
-- skills' (175_postings.sql); skill_tool_docs gives each tool the columns of its skill that search filters read. The
-- catalog fingerprint is forgotten, so the next start re-imports the catalog and fills them.
CREATE TABLE skill_tools (
  id TEXT PRIMARY KEY,
  skill_id TEXT NOT NULL,                               -- skills.id
  fts tsvector NOT NULL,
  fts_len INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX skill_tools_skill ON skill_tools (skill_id);

CREATE TABLE skill_tool_terms (
  lexeme TEXT NOT NULL,
  doc TEXT NOT NULL,                                    -- skill_tools.id
  len INTEGER NOT NULL,                                 -- skill_tools.fts_len
  a SMALLINT NOT NULL,
  b SMALLINT NOT NULL,
  c SMALLINT NOT NULL,
  d SMALLINT NOT NULL,
  PRIMARY KEY (lexeme, doc) INCLUDE (len, a, b, c, d)
);

CREATE VIEW skill_tool_docs AS
  SELECT t.id, t.fts_len, s.category, s.type, s.pricing_model FROM skill_tools t JOIN skills s ON s.id = t.skill_id;

DELETE FROM meta WHERE key = 'catalog_fingerprint';
