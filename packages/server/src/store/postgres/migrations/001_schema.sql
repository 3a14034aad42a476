-- The PostgreSQL schema, equal to the SQLite migrations 001-080 (packages/server/src/store/migrations).
-- Integers are BIGINT (Unix ms, micro-USDC); flags stay 0/1 integers so both dialects share their SQL.
-- Full-text search uses weighted tsvector columns with GIN indexes instead of FTS5 tables.

-- Full-text tokens as SQLite's unicode61 tokenizer makes them (lower-case letter and digit runs), stemmed
-- by Snowball English without a stopword list (FTS5's porter tokenizer keeps stopwords too), so document
-- lengths and term frequencies, and with them BM25, match the SQLite side.
CREATE FUNCTION axle_words(t text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN regexp_replace(lower(t), '[^[:alnum:]]+', ' ', 'g');
CREATE TEXT SEARCH DICTIONARY axle_stem (TEMPLATE = snowball, LANGUAGE = english);
CREATE TEXT SEARCH CONFIGURATION axle (COPY = english);
ALTER TEXT SEARCH CONFIGURATION axle ALTER MAPPING FOR asciiword, word, numword, asciihword, hword, numhword,
  hword_part, hword_asciipart, hword_numpart WITH axle_stem;

CREATE FUNCTION axle_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% is append-only', TG_TABLE_NAME;
END;
$$;

-- from SQLite 001_init.sql
-- Key-value facts about this installation (generated secrets, catalog fingerprint).
CREATE TABLE meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

-- from SQLite 002_skills.sql
-- The skills catalog, loaded from the catalog file at start (replaced when its fingerprint,
-- meta 'catalog_fingerprint', changes). `data` is the Skill as JSON; the other columns are
-- what lookups and filters need.
CREATE TABLE skills (
  id TEXT PRIMARY KEY,
  slug TEXT NOT NULL,
  category TEXT NOT NULL,
  type TEXT NOT NULL,
  pricing_model TEXT NOT NULL,
  position BIGINT NOT NULL UNIQUE,
  data TEXT NOT NULL,
  -- Lexical index: name, tags, description and category as weight classes A-D (filled by the catalog
  -- import) and its length in tokens, for BM25 (store/postgres/bm25.ts).
  fts tsvector NOT NULL,
  fts_len INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX skills_slug ON skills (slug);
CREATE INDEX skills_fts ON skills USING GIN (fts);

-- Sentence embeddings (unit-length Float32, little-endian). `text_hash` identifies the text that
-- was embedded, so a catalog change recomputes only the skills whose text changed.
CREATE TABLE skill_embeddings (
  skill_id TEXT NOT NULL,
  model TEXT NOT NULL,
  text_hash TEXT NOT NULL,
  vector BYTEA NOT NULL,
  PRIMARY KEY (skill_id, model)
);

-- from SQLite 003_learnings.sql
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
  unlock_price_micro BIGINT NOT NULL,                  -- set by the contributor on submit
  base_price_micro BIGINT NOT NULL,
  current_price_micro BIGINT NOT NULL,
  override_price_micro BIGINT,                         -- contributor override within floor and ceiling
  complexity TEXT NOT NULL DEFAULT 'medium',
  last_repriced_at BIGINT NOT NULL,
  quality_score BIGINT,                                -- rubric total 4..20; NULL when not assessed
  quality_dimensions TEXT,                              -- JSON object of the four rubric dimensions
  unlock_count BIGINT NOT NULL DEFAULT 0,
  rating_count BIGINT NOT NULL DEFAULT 0,
  avg_helpfulness DOUBLE PRECISION NOT NULL DEFAULT 0,
  gross_micro BIGINT NOT NULL DEFAULT 0,
  contributor_micro BIGINT NOT NULL DEFAULT 0,
  platform_micro BIGINT NOT NULL DEFAULT 0,
  injection_flags TEXT,                                 -- JSON array, only when flagged
  possible_duplicate_of TEXT,
  possible_duplicate_similarity DOUBLE PRECISION,
  published_at BIGINT,                                 -- first approval; starts the retraction window
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
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
  count BIGINT NOT NULL DEFAULT 0
);

-- from SQLite 010_accounts.sql
-- People who signed in by magic link. The account is created on the first successful verification.
CREATE TABLE accounts (
  id TEXT PRIMARY KEY,                 -- acc_…
  email TEXT UNIQUE NOT NULL,          -- trimmed and lower-cased
  wallet TEXT,                         -- linked payout wallet, or NULL
  suspended BIGINT NOT NULL DEFAULT 0,
  deleted_at BIGINT,                  -- Unix ms; a deleted account can no longer authenticate
  created_at BIGINT NOT NULL          -- Unix ms
);

-- from SQLite 011_magic_links.sql
-- Sign-in links. Only the SHA-256 of the token is kept; used_at makes each link single-use.
CREATE TABLE magic_links (
  token_hash TEXT PRIMARY KEY,         -- hex SHA-256 of the random token
  email TEXT NOT NULL,
  next_path TEXT,                      -- same-origin path the landing page continues to (device approval)
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  used_at BIGINT
);
CREATE INDEX magic_links_expires ON magic_links (expires_at);

-- from SQLite 012_api_keys.sql
-- API keys: the raw key (axl_…) is shown once; only its SHA-256 is stored.
CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,                 -- key_…
  account_id TEXT NOT NULL REFERENCES accounts (id),
  key_hash TEXT UNIQUE NOT NULL,       -- hex SHA-256 of the raw key
  name TEXT NOT NULL,
  scopes TEXT NOT NULL,                -- space-separated: search contribute account
  created_at BIGINT NOT NULL,
  last_used_at BIGINT,                -- refreshed at most once a minute
  revoked_at BIGINT
);
CREATE INDEX api_keys_account ON api_keys (account_id, created_at);

-- from SQLite 013_rate_limits.sql
-- Shared rate-limit counters (every server instance sees the same ones). A window opens at the
-- first hit of a bucket and lasts the limit's period; the next hit after it ends opens a new one.
CREATE TABLE rate_limits (
  bucket TEXT PRIMARY KEY,             -- e.g. magic-link:email:<sha256>, magic-link:ip:<addr>
  window_start BIGINT NOT NULL,       -- Unix ms
  count BIGINT NOT NULL
);
CREATE INDEX rate_limits_window ON rate_limits (window_start);

-- from SQLite 015_audit_log.sql
-- Hash-chained, append-only audit log. Each row stores the hash of the row before it (prev_hash),
-- so an edited or deleted row breaks the chain and `npm run audit:verify` reports it.
CREATE TABLE audit_log (
  id TEXT PRIMARY KEY,               -- aud_…, handed out as audit_ref
  seq BIGINT NOT NULL UNIQUE,       -- 1, 2, 3 … ; UNIQUE makes a racing second writer fail instead of forking the chain
  ts BIGINT NOT NULL,               -- Unix ms from the injected clock
  actor TEXT NOT NULL,               -- e.g. account:acc_…, admin, system
  action TEXT NOT NULL,              -- e.g. consent.granted, key.created, device.approved
  subject TEXT,                      -- what the action touched (account, key, learning id …)
  data TEXT NOT NULL,                -- canonical JSON object
  prev_hash TEXT NOT NULL,           -- hash of seq-1, or 64 zeros for the first entry
  hash TEXT NOT NULL                 -- SHA-256 over the canonical form of the fields above
);

-- Append-only inside the application; someone with the file can drop these, which the chain still catches.
CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log FOR EACH ROW EXECUTE FUNCTION axle_append_only();
CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log FOR EACH ROW EXECUTE FUNCTION axle_append_only();

-- from SQLite 016_terms_acceptances.sql
-- Clickwrap acceptances, one row per account and terms version; never updated or deleted.
CREATE TABLE terms_acceptances (
  id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts (id),
  version TEXT NOT NULL,
  accepted_at BIGINT NOT NULL,        -- Unix ms
  via TEXT NOT NULL,                   -- jwt or key
  audit_ref TEXT NOT NULL,             -- aud_… entry recording it
  UNIQUE (account_id, version)
);

CREATE TRIGGER terms_acceptances_no_update BEFORE UPDATE ON terms_acceptances FOR EACH ROW EXECUTE FUNCTION axle_append_only();
CREATE TRIGGER terms_acceptances_no_delete BEFORE DELETE ON terms_acceptances FOR EACH ROW EXECUTE FUNCTION axle_append_only();

-- from SQLite 017_consent.sql
-- Extraction consent: every grant and revocation is a new row (append-only); the latest row is in force.
CREATE TABLE consent_records (
  id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts (id),
  action TEXT NOT NULL CHECK (action IN ('grant', 'revoke')),
  consent_version TEXT NOT NULL,       -- ISO date of the consent text
  via TEXT NOT NULL,                   -- consent (POST /extract/consent) or settings (PATCH /account/settings)
  recorded_at BIGINT NOT NULL,        -- Unix ms
  audit_ref TEXT NOT NULL
);
CREATE INDEX consent_records_account ON consent_records (account_id, id);

CREATE TRIGGER consent_records_no_update BEFORE UPDATE ON consent_records FOR EACH ROW EXECUTE FUNCTION axle_append_only();
CREATE TRIGGER consent_records_no_delete BEFORE DELETE ON consent_records FOR EACH ROW EXECUTE FUNCTION axle_append_only();

-- Per-account preferences; absent row = defaults (mode off).
CREATE TABLE account_settings (
  account_id TEXT PRIMARY KEY REFERENCES accounts (id),
  autonomous_extraction_mode TEXT NOT NULL CHECK (autonomous_extraction_mode IN ('off', 'automatic', 'manual')),
  updated_at BIGINT NOT NULL
);

-- from SQLite 018_device_codes.sql
-- RFC 8628 device authorization requests. The device_code is never stored: rows are found by its
-- SHA-256, and the key minted on approval is sealed to the device_code (only its public half,
-- public_key, is kept), then erased once delivered.
CREATE TABLE device_codes (
  device_code_hash TEXT PRIMARY KEY,   -- hex SHA-256 of the device_code
  user_code TEXT NOT NULL UNIQUE,      -- canonical: 8 letters, uppercase, no dash
  client_name TEXT NOT NULL,
  public_key TEXT NOT NULL,            -- base64url X25519 public key derived from the device_code
  status TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'denied', 'delivered')),
  interval_s BIGINT NOT NULL,         -- grows by 5 on every slow_down
  last_polled_at BIGINT,              -- Unix ms
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  account_id TEXT REFERENCES accounts (id),
  key_id TEXT,                         -- the API key minted on approval
  sealed_key TEXT,                     -- that key, sealed to the device_code; NULL once delivered
  decided_at BIGINT
);
CREATE INDEX device_codes_expires ON device_codes (expires_at);


-- from SQLite 030_money.sql
-- Money: credits, purchases, unlocks and the revenue-share ledger, withdrawals, payment replay
-- claims, wallet proofs. Amounts are integer micro-USDC; times are Unix ms. A holder is an
-- account id (acc_…) or, for contributions attributed to a wallet alone, a lower-case wallet.

-- Card-bought credits; they never expire.
CREATE TABLE credit_balances (
  account_id TEXT PRIMARY KEY REFERENCES accounts (id),
  unlocks BIGINT NOT NULL DEFAULT 0 CHECK (unlocks >= 0),
  queries BIGINT NOT NULL DEFAULT 0 CHECK (queries >= 0),
  updated_at BIGINT NOT NULL
);

CREATE TABLE purchases (
  id TEXT PRIMARY KEY,                                  -- pur_…
  account_id TEXT NOT NULL REFERENCES accounts (id),
  pack_id TEXT NOT NULL,
  amount_micro BIGINT NOT NULL,
  queries_added BIGINT NOT NULL,
  unlocks_added BIGINT NOT NULL,
  checkout_session_id TEXT UNIQUE NOT NULL,             -- one purchase per completed checkout
  created_at BIGINT NOT NULL
);
CREATE INDEX purchases_account ON purchases (account_id, created_at);

-- One row per unlock served: what the buyer paid and how it was split (contributor + platform = gross).
CREATE TABLE unlocks (
  id TEXT PRIMARY KEY,                                  -- unl_…
  learning_id TEXT NOT NULL,
  buyer TEXT NOT NULL,                                  -- acc_… (key path) or the payer's lower-case wallet
  path TEXT NOT NULL CHECK (path IN ('key', 'x402', 'owner')),
  gross_micro BIGINT NOT NULL CHECK (gross_micro >= 0),
  contributor_micro BIGINT NOT NULL CHECK (contributor_micro >= 0),
  platform_micro BIGINT NOT NULL CHECK (platform_micro >= 0),
  payee TEXT,                                           -- holder credited with contributor_micro; NULL when none
  held BIGINT NOT NULL DEFAULT 0,                      -- 1: credited as unassented_pending
  discovery BIGINT NOT NULL DEFAULT 0,
  self_dealing BIGINT NOT NULL DEFAULT 0,
  accrual_capped BIGINT NOT NULL DEFAULT 0,
  settlement_path TEXT,                                 -- x402: local, facilitator or router
  tx_hash TEXT,
  created_at BIGINT NOT NULL,
  CHECK (contributor_micro + platform_micro = gross_micro)
);
CREATE INDEX unlocks_buyer ON unlocks (buyer, learning_id, created_at);
CREATE INDEX unlocks_learning ON unlocks (learning_id, created_at);
CREATE INDEX unlocks_payee ON unlocks (payee);

-- Running balances per holder; ledger_entries is the journal they are the sums of (npm run ledger:check).
CREATE TABLE earnings_balances (
  holder TEXT PRIMARY KEY,
  owned_micro BIGINT NOT NULL DEFAULT 0 CHECK (owned_micro >= 0),        -- lifetime owned contributor share
  held_micro BIGINT NOT NULL DEFAULT 0 CHECK (held_micro >= 0),          -- unassented_pending
  pending_micro BIGINT NOT NULL DEFAULT 0 CHECK (pending_micro >= 0),    -- withdrawable
  withdrawn_micro BIGINT NOT NULL DEFAULT 0 CHECK (withdrawn_micro >= 0),
  withdrawal_count BIGINT NOT NULL DEFAULT 0 CHECK (withdrawal_count >= 0),
  updated_at BIGINT NOT NULL
);

-- accrue: +owned +pending; hold: +held; release: -held +owned +pending; migrate_out: -held;
-- migrate_in: +held; withdraw: -pending +withdrawn; refund: +pending -withdrawn (failed payout).
CREATE TABLE ledger_entries (
  id TEXT PRIMARY KEY,                                  -- led_…
  holder TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('accrue', 'hold', 'release', 'migrate_out', 'migrate_in', 'withdraw', 'refund')),
  amount_micro BIGINT NOT NULL CHECK (amount_micro > 0),
  ref TEXT,                                             -- unlock, settlement or counterpart holder
  created_at BIGINT NOT NULL
);
CREATE INDEX ledger_entries_holder ON ledger_entries (holder, kind);

CREATE TABLE settlements (
  id TEXT PRIMARY KEY,                                  -- set_…
  holder TEXT NOT NULL,                                 -- the account whose pending balance was debited
  wallet TEXT,
  rail TEXT NOT NULL CHECK (rail IN ('wallet', 'processor')),
  amount_micro BIGINT NOT NULL CHECK (amount_micro > 0),
  status TEXT NOT NULL CHECK (status IN ('pending', 'confirmed', 'processing_timeout', 'failed')),
  tx_hash TEXT,
  payout_id TEXT,
  created_at BIGINT NOT NULL,
  confirmed_at BIGINT
);
-- At most one unresolved withdrawal per holder: the second concurrent one fails this index (409).
CREATE UNIQUE INDEX settlements_in_flight ON settlements (holder) WHERE status IN ('pending', 'processing_timeout');
CREATE INDEX settlements_wallet ON settlements (wallet, created_at);

-- An x402 authorization buys one unlock: (chain, payer, nonce) is claimed before settling.
CREATE TABLE payment_claims (
  chain_id BIGINT NOT NULL,
  payer TEXT NOT NULL,
  nonce TEXT NOT NULL,
  learning_id TEXT NOT NULL,
  unlock_id TEXT,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (chain_id, payer, nonce)
);

CREATE TABLE wallet_challenges (
  id TEXT PRIMARY KEY,                                  -- wch_…, also the challenge's nonce
  wallet TEXT NOT NULL,
  expires_at BIGINT NOT NULL,
  used_at BIGINT
);
CREATE INDEX wallet_challenges_wallet ON wallet_challenges (wallet, expires_at);

CREATE TABLE wallet_verifications (
  wallet TEXT PRIMARY KEY,
  verified_at BIGINT NOT NULL
);

-- A wallet pays out to one account only.
CREATE UNIQUE INDEX accounts_wallet ON accounts (wallet) WHERE wallet IS NOT NULL;

-- The processor-side account that card-rail payouts go to (created through hosted onboarding).
CREATE TABLE payout_accounts (
  account_id TEXT PRIMARY KEY REFERENCES accounts (id),
  processor_account_id TEXT NOT NULL,
  created_at BIGINT NOT NULL
);

-- from SQLite 040_knowledge.sql
-- The knowledge marketplace around the learnings table: full-text index of visible learnings,
-- MinHash LSH band keys for near-duplicate checks, demand by day, which learnings a search showed
-- to which account, ratings (one slot per account), learning vectors and the auto-publish threshold.

-- seq: a per-learning integer assigned in code (the full-text index's row id).
ALTER TABLE learnings ADD COLUMN seq BIGINT;
-- Hash of the normalised title and body: exact duplicates.
ALTER TABLE learnings ADD COLUMN content_hash TEXT;
-- JSON array of finding types from the credentials, personal-data and content-sensitivity screens.
ALTER TABLE learnings ADD COLUMN sensitivity_findings TEXT;
-- A sanitized resubmission names the held or rejected learning it replaces.
ALTER TABLE learnings ADD COLUMN replaces_id TEXT;
CREATE UNIQUE INDEX learnings_seq ON learnings (seq);
CREATE INDEX learnings_content_hash ON learnings (content_hash);
CREATE INDEX learnings_account_status ON learnings (contributor_account_id, status, created_at);

-- Visible (approved) learnings carry their lexical vector, kept by a trigger (NULL otherwise): title A,
-- tags B, body C, task context D; fts_len is its length in tokens, for BM25.
ALTER TABLE learnings ADD COLUMN fts tsvector;
ALTER TABLE learnings ADD COLUMN fts_len INTEGER;
CREATE FUNCTION learnings_fts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.status = 'approved' THEN
    NEW.fts := setweight(to_tsvector('axle', axle_words(NEW.title)), 'A') || setweight(to_tsvector('axle', axle_words(NEW.tags)), 'B') ||
      setweight(to_tsvector('axle', axle_words(NEW.body)), 'C') || setweight(to_tsvector('axle', axle_words(NEW.task_context)), 'D');
    NEW.fts_len := (SELECT COALESCE(SUM(array_length(positions, 1)), 0) FROM unnest(NEW.fts));
  ELSE
    NEW.fts := NULL;
    NEW.fts_len := NULL;
  END IF;
  RETURN NEW;
END;
$$;
CREATE TRIGGER learnings_fts BEFORE INSERT OR UPDATE OF status, title, body, tags, task_context ON learnings
  FOR EACH ROW EXECUTE FUNCTION learnings_fts();
CREATE INDEX learnings_fts ON learnings USING GIN (fts);

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
  day BIGINT NOT NULL,
  impressions BIGINT NOT NULL DEFAULT 0,
  unlocks BIGINT NOT NULL DEFAULT 0,
  PRIMARY KEY (learning_id, day)
);

-- The last time a POST /knowledge search by an account showed a learning (discovery-driven attribution).
CREATE TABLE learning_surfaced (
  account_id TEXT NOT NULL,
  learning_id TEXT NOT NULL,
  surfaced_at BIGINT NOT NULL,
  PRIMARY KEY (account_id, learning_id)
);

-- One rating slot per account and learning; a re-rating replaces it.
CREATE TABLE learning_ratings (
  learning_id TEXT NOT NULL,
  account_id TEXT NOT NULL,
  helpfulness BIGINT NOT NULL CHECK (helpfulness BETWEEN 1 AND 5),
  notes TEXT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  PRIMARY KEY (learning_id, account_id)
);

-- Sentence vectors of visible learnings, int8-quantised (codes blob and scale); instances load the rows
-- added since they last looked.
CREATE TABLE learning_embeddings (
  id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  learning_id TEXT NOT NULL,
  model TEXT NOT NULL,
  codes BYTEA NOT NULL,
  scale DOUBLE PRECISION NOT NULL
);
CREATE INDEX learning_embeddings_learning ON learning_embeddings (learning_id);

-- Quality score (0..1) an extracted item needs to publish without review; NULL = the documented default.
ALTER TABLE account_settings ADD COLUMN auto_publish_threshold DOUBLE PRECISION;

-- from SQLite 075_a2a_tasks.sql
-- A2A tasks (message/send creates one, tasks/get reads it), shared by every instance; pruned after a day.
CREATE TABLE a2a_tasks (
  id TEXT PRIMARY KEY,
  context_id TEXT NOT NULL,
  task TEXT NOT NULL,                  -- the A2A Task as JSON
  updated_at BIGINT NOT NULL          -- Unix ms
);
CREATE INDEX a2a_tasks_updated ON a2a_tasks (updated_at);

-- from SQLite 078_withdrawal_proofs.sql
-- Withdrawal signatures already spent: one row per signed {wallet, timestamp}, so a signature pays out once.
-- Keyed by the signed message, not the signature bytes, which a third party can re-encode (ECDSA malleability).
-- Rows older than the signature freshness window can no longer be replayed and are pruned.
CREATE TABLE withdrawal_proofs (
  wallet TEXT NOT NULL,                -- lower-case
  signed_timestamp BIGINT NOT NULL,   -- Unix ms, the signed timestamp
  used_at BIGINT NOT NULL,            -- Unix ms
  PRIMARY KEY (wallet, signed_timestamp)
);
CREATE INDEX withdrawal_proofs_signed ON withdrawal_proofs (signed_timestamp);

-- from SQLite 080_learnings_wallet_lower.sql
-- GET /contributor/{wallet} matches wallets case-insensitively (lower(contributor_wallet) = ?): without an index
-- on the expression every request scanned the whole learnings table.
CREATE INDEX learnings_wallet_lower ON learnings (lower(contributor_wallet));
