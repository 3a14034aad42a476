-- The skills catalog, loaded from the catalog file at start (replaced when its fingerprint,
-- meta 'catalog_fingerprint', changes). `data` is the Skill as JSON; the other columns are
-- what lookups and filters need.
CREATE TABLE skills (
  id TEXT PRIMARY KEY,
  slug TEXT NOT NULL,
  category TEXT NOT NULL,
  type TEXT NOT NULL,
  pricing_model TEXT NOT NULL,
  position INTEGER NOT NULL,
  data TEXT NOT NULL
);
CREATE INDEX skills_slug ON skills (slug);

-- Lexical index; rowid = skills.rowid. Column order fixes the bm25() weights.
CREATE VIRTUAL TABLE skills_fts USING fts5 (name, description, tags, category, tokenize = 'porter unicode61');

-- Sentence embeddings (unit-length Float32, little-endian). `text_hash` identifies the text that
-- was embedded, so a catalog change recomputes only the skills whose text changed.
CREATE TABLE skill_embeddings (
  skill_id TEXT NOT NULL,
  model TEXT NOT NULL,
  text_hash TEXT NOT NULL,
  vector BLOB NOT NULL,
  PRIMARY KEY (skill_id, model)
);
