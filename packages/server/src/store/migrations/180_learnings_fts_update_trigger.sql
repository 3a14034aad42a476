-- One update trigger in place of learnings_fts_leave and learnings_fts_enter: SQLite fired enter before leave,
-- so editing an approved learning in place inserted its new text under a rowid still indexed with the old text
-- (a corrupt index). Here the old entry leaves, then the new one enters, in that order.
DROP TRIGGER learnings_fts_leave;
DROP TRIGGER learnings_fts_enter;

CREATE TRIGGER learnings_fts_update AFTER UPDATE OF status, seq, title, body, tags, task_context ON learnings
WHEN (OLD.status = 'approved' OR NEW.status = 'approved')
  AND (NEW.status IS NOT OLD.status OR NEW.seq IS NOT OLD.seq OR NEW.title IS NOT OLD.title
       OR NEW.body IS NOT OLD.body OR NEW.tags IS NOT OLD.tags OR NEW.task_context IS NOT OLD.task_context)
BEGIN
  INSERT INTO learnings_fts (learnings_fts, rowid, title, body, tags, task_context)
  SELECT 'delete', OLD.seq, OLD.title, OLD.body, OLD.tags, OLD.task_context WHERE OLD.status = 'approved';
  INSERT INTO learnings_fts (rowid, title, body, tags, task_context)
  SELECT NEW.seq, NEW.title, NEW.body, NEW.tags, NEW.task_context WHERE NEW.status = 'approved';
END;
