-- The knowledge marketplace around the learnings table: full-text index of visible learnings,
-- MinHash LSH band keys for near-duplicate checks, demand by day, which learnings a search showed
-- to which account, ratings (one slot per account), learning vectors and the auto-publish threshold.

-- seq: a per-learning integer assigned in code (the full-text index's row id).
ALTER TABLE learnings ADD COLUMN seq INTEGER;
-- Hash of the normalised title and body: exact duplicates.
ALTER TABLE learnings ADD COLUMN content_hash TEXT;
-- JSON array of finding types from the credentials, personal-data and content-sensitivity screens.
ALTER TABLE learnings ADD COLUMN sensitivity_findings TEXT;
-- A sanitized resubmission names the held or rejected learning it replaces.
ALTER TABLE learnings ADD COLUMN replaces_id TEXT;
CREATE UNIQUE INDEX learnings_seq ON learnings (seq);
CREATE INDEX learnings_content_hash ON learnings (content_hash);
CREATE INDEX learnings_account_status ON learnings (contributor_account_id, status, created_at);

-- Visible (approved) learnings only; row id = learnings.seq. External content: the text stays in learnings.
CREATE VIRTUAL TABLE learnings_fts USING fts5 (
  title, body, tags, task_context,
  content = 'learnings', content_rowid = 'seq', tokenize = 'porter unicode61'
);

-- One row per LSH band key of a learning's MinHash signature: candidates are found by key, not by a scan.
CREATE TABLE learning_lsh (
  band_key TEXT NOT NULL,
  learning_id TEXT NOT NULL,
  PRIMARY KEY (band_key, learning_id)
);
CREATE INDEX learning_lsh_learning ON learning_lsh (learning_id);

-- Search impressions and unlocks per learning and UTC day (day = floor(ms / 86400000)).
CREATE TABLE learning_demand (
  learning_id TEXT NOT NULL,
  day INTEGER NOT NULL,
  impressions INTEGER NOT NULL DEFAULT 0,
  unlocks INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (learning_id, day)
);

-- The last time a POST /knowledge search by an account showed a learning (discovery-driven attribution).
CREATE TABLE learning_surfaced (
  account_id TEXT NOT NULL,
  learning_id TEXT NOT NULL,
  surfaced_at INTEGER NOT NULL,
  PRIMARY KEY (account_id, learning_id)
);

-- One rating slot per account and learning; a re-rating replaces it.
CREATE TABLE learning_ratings (
  learning_id TEXT NOT NULL,
  account_id TEXT NOT NULL,
  helpfulness INTEGER NOT NULL CHECK (helpfulness BETWEEN 1 AND 5),
  notes TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (learning_id, account_id)
);

-- Sentence vectors of visible learnings, int8-quantised (codes blob and scale); instances load the rows
-- added since they last looked.
CREATE TABLE learning_embeddings (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  learning_id TEXT NOT NULL,
  model TEXT NOT NULL,
  codes BLOB NOT NULL,
  scale REAL NOT NULL
);
CREATE INDEX learning_embeddings_learning ON learning_embeddings (learning_id);

-- Quality score (0..1) an extracted item needs to publish without review; NULL = the documented default.
ALTER TABLE account_settings ADD COLUMN auto_publish_threshold REAL;
