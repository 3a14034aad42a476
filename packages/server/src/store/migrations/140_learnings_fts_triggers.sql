-- The full-text index of visible learnings follows the learnings table by itself: a learning enters
-- learnings_fts when it becomes approved (inserted approved, or approved later) and leaves it when it
-- stops being approved, so no code outside the schema maintains it (PostgreSQL does the same with its
-- own triggers). The external-content form needs the indexed values to delete a row.
CREATE TRIGGER learnings_fts_insert AFTER INSERT ON learnings
WHEN NEW.status = 'approved'
BEGIN
  INSERT INTO learnings_fts (rowid, title, body, tags, task_context)
  VALUES (NEW.seq, NEW.title, NEW.body, NEW.tags, NEW.task_context);
END;

CREATE TRIGGER learnings_fts_leave AFTER UPDATE OF status, seq, title, body, tags, task_context ON learnings
WHEN OLD.status = 'approved'
  AND (NEW.status <> 'approved' OR NEW.seq IS NOT OLD.seq OR NEW.title IS NOT OLD.title OR NEW.body IS NOT OLD.body
       OR NEW.tags IS NOT OLD.tags OR NEW.task_context IS NOT OLD.task_context)
BEGIN
  INSERT INTO learnings_fts (learnings_fts, rowid, title, body, tags, task_context)
  VALUES ('delete', OLD.seq, OLD.title, OLD.body, OLD.tags, OLD.task_context);
END;

CREATE TRIGGER learnings_fts_enter AFTER UPDATE OF status, seq, title, body, tags, task_context ON learnings
WHEN NEW.status = 'approved'
  AND (OLD.status <> 'approved' OR NEW.seq IS NOT OLD.seq OR NEW.title IS NOT OLD.title OR NEW.body IS NOT OLD.body
       OR NEW.tags IS NOT OLD.tags OR NEW.task_context IS NOT OLD.task_context)
BEGIN
  INSERT INTO learnings_fts (rowid, title, body, tags, task_context)
  VALUES (NEW.seq, NEW.title, NEW.body, NEW.tags, NEW.task_context);
END;

CREATE TRIGGER learnings_fts_delete AFTER DELETE ON learnings
WHEN OLD.status = 'approved'
BEGIN
  INSERT INTO learnings_fts (learnings_fts, rowid, title, body, tags, task_context)
  VALUES ('delete', OLD.seq, OLD.title, OLD.body, OLD.tags, OLD.task_context);
END;
