-- from SQLite 400_learn_requests.sql: POST /learn's Idempotency-Key, the answer a submission got, kept a day per
-- owner and key.
CREATE TABLE learn_requests (
  owner TEXT NOT NULL,
  request_key TEXT NOT NULL,
  body_hash TEXT NOT NULL,
  response TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (owner, request_key)
);
CREATE INDEX learn_requests_created ON learn_requests (created_at);
