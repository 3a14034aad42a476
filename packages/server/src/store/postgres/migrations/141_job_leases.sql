-- Background jobs run once per interval across every instance on the database: an instance runs a job
-- only after claiming its row for the current interval (store/job-leases.ts).
CREATE TABLE job_leases (
  name TEXT PRIMARY KEY,
  holder TEXT NOT NULL,                -- the instance that ran it last
  ran_at BIGINT NOT NULL,             -- Unix ms of the last claim
  runs BIGINT NOT NULL DEFAULT 1      -- claims so far
);
