-- A2A tasks (message/send creates one, tasks/get reads it), shared by every instance; pruned after a day.
CREATE TABLE a2a_tasks (
  id TEXT PRIMARY KEY,
  context_id TEXT NOT NULL,
  task TEXT NOT NULL,                  -- the A2A Task as JSON
  updated_at INTEGER NOT NULL          -- Unix ms
);
CREATE INDEX a2a_tasks_updated ON a2a_tasks (updated_at);
