-- A2A tasks are now stored as A2A 1.0 JSON (served to 1.0 and, translated, to 0.3 clients): rows of the 0.3
-- shape cannot be read back, and tasks live a day only, so they go. ListTasks reads a context's newest tasks.
DELETE FROM a2a_tasks;
CREATE INDEX a2a_tasks_context ON a2a_tasks (context_id, updated_at);
