-- Learnings: everything LearningFull shows that is not derived from other tables. Money is
-- integer micro-USDC; times are Unix ms; JSON columns hold arrays. Demand windows, ratings and
-- per-unlock revenue come from their own tables (later migrations); the counters here are the
-- running totals search ranking and stats read without a join.
CREATE TABLE learnings (
  id TEXT PRIMARY KEY,                                  -- lrn_…
  status TEXT NOT NULL CHECK (status IN ('approved', 'pending_review', 'rejected', 'retracted')),
  review_reason TEXT,                                   -- JSON array of review reasons while held
  category TEXT NOT NULL,
  title TEXT NOT NULL,
  body TEXT NOT NULL,
  body_hash TEXT NOT NULL,                              -- sha256 hex of the body
  tags TEXT NOT NULL DEFAULT '[]',                      -- JSON array of strings
  task_context TEXT NOT NULL DEFAULT '',
  outcome TEXT,                                         -- NULL only for drafts without one
  related_skills TEXT NOT NULL DEFAULT '[]',            -- JSON array of skill ids
  contributor_account_id TEXT,                          -- owner (self-review, retraction); NULL for wallet-only submissions
  contributor_wallet TEXT,                              -- payout attribution
  contributor_key_label TEXT,
  contributor_agent TEXT NOT NULL DEFAULT '',
  submission_channel TEXT NOT NULL DEFAULT 'direct' CHECK (submission_channel IN ('direct', 'extraction')),
  source_client TEXT,                                   -- extraction: the client the draft came from
  visibility TEXT NOT NULL DEFAULT 'public',
  unlock_price_micro INTEGER NOT NULL,                  -- set by the contributor on submit
  base_price_micro INTEGER NOT NULL,
  current_price_micro INTEGER NOT NULL,
  override_price_micro INTEGER,                         -- contributor override within floor and ceiling
  complexity TEXT NOT NULL DEFAULT 'medium',
  last_repriced_at INTEGER NOT NULL,
  quality_score INTEGER,                                -- rubric total 4..20; NULL when not assessed
  quality_dimensions TEXT,                              -- JSON object of the four rubric dimensions
  unlock_count INTEGER NOT NULL DEFAULT 0,
  rating_count INTEGER NOT NULL DEFAULT 0,
  avg_helpfulness REAL NOT NULL DEFAULT 0,
  gross_micro INTEGER NOT NULL DEFAULT 0,
  contributor_micro INTEGER NOT NULL DEFAULT 0,
  platform_micro INTEGER NOT NULL DEFAULT 0,
  injection_flags TEXT,                                 -- JSON array, only when flagged
  possible_duplicate_of TEXT,
  possible_duplicate_similarity REAL,
  published_at INTEGER,                                 -- first approval; starts the retraction window
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX learnings_status ON learnings (status);
CREATE INDEX learnings_category ON learnings (category, status);
CREATE INDEX learnings_account ON learnings (contributor_account_id);
CREATE INDEX learnings_wallet ON learnings (contributor_wallet);
CREATE INDEX learnings_body_hash ON learnings (body_hash);

-- Searches served, by kind (discover, knowledge). Kept here, not in process memory, so every
-- instance behind a load balancer counts into the same totals.
CREATE TABLE query_counters (
  name TEXT PRIMARY KEY,
  count INTEGER NOT NULL DEFAULT 0
);
