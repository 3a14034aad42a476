-- POST /learn's Idempotency-Key: the answer a submission got, kept a day per owner (an account, or a wallet claim's
-- limit subject) and key, so a retry after a lost answer gets that answer instead of a 409 for its own learning.
CREATE TABLE learn_requests (
  owner TEXT NOT NULL,
  request_key TEXT NOT NULL,
  body_hash TEXT NOT NULL,                              -- sha256 of the request as parsed: a key names one request
  response TEXT NOT NULL,                               -- the 201 answer's JSON
  created_at INTEGER NOT NULL,
  PRIMARY KEY (owner, request_key)
);
CREATE INDEX learn_requests_created ON learn_requests (created_at);
