-- Postings of the two lexical indexes, for BM25 (store/postgres/bm25.ts): per document and lexeme, its
-- occurrences in each weight class A-D and the document's length in tokens. A search reads the rows of
-- its lexemes from the (lexeme, doc) index instead of unnesting every candidate's whole tsvector. They
-- hold the terms of exactly the searched documents: every skill (the catalog import writes them) and the
-- approved learnings, those with an fts (a trigger keeps them).
CREATE FUNCTION axle_postings(v tsvector)
  RETURNS TABLE (lexeme text, a smallint, b smallint, c smallint, d smallint)
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT u.lexeme, cardinality(array_positions(u.weights, 'A'))::smallint,
    cardinality(array_positions(u.weights, 'B'))::smallint, cardinality(array_positions(u.weights, 'C'))::smallint,
    cardinality(array_positions(u.weights, 'D'))::smallint
  FROM unnest(v) u
$$;

CREATE TABLE skill_terms (
  lexeme TEXT NOT NULL,
  doc TEXT NOT NULL,                                    -- skills.id
  len INTEGER NOT NULL,                                 -- skills.fts_len
  a SMALLINT NOT NULL,
  b SMALLINT NOT NULL,
  c SMALLINT NOT NULL,
  d SMALLINT NOT NULL,
  PRIMARY KEY (lexeme, doc) INCLUDE (len, a, b, c, d)
);
INSERT INTO skill_terms (lexeme, doc, len, a, b, c, d)
  SELECT p.lexeme, s.id, s.fts_len, p.a, p.b, p.c, p.d FROM skills s CROSS JOIN LATERAL axle_postings(s.fts) p;

CREATE TABLE learning_terms (
  lexeme TEXT NOT NULL,
  doc TEXT NOT NULL,                                    -- learnings.id
  len INTEGER NOT NULL,                                 -- learnings.fts_len
  a SMALLINT NOT NULL,
  b SMALLINT NOT NULL,
  c SMALLINT NOT NULL,
  d SMALLINT NOT NULL,
  PRIMARY KEY (lexeme, doc) INCLUDE (len, a, b, c, d)
);
CREATE INDEX learning_terms_doc ON learning_terms (doc);
INSERT INTO learning_terms (lexeme, doc, len, a, b, c, d)
  SELECT p.lexeme, l.id, l.fts_len, p.a, p.b, p.c, p.d
  FROM learnings l CROSS JOIN LATERAL axle_postings(l.fts) p WHERE l.fts IS NOT NULL;

-- Runs after learnings_fts has set (or cleared) the row's fts: approval, an edit, retraction, deletion.
CREATE FUNCTION learning_terms() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    DELETE FROM learning_terms WHERE doc = OLD.id;
  END IF;
  IF TG_OP <> 'DELETE' AND NEW.fts IS NOT NULL THEN
    INSERT INTO learning_terms (lexeme, doc, len, a, b, c, d)
      SELECT p.lexeme, NEW.id, NEW.fts_len, p.a, p.b, p.c, p.d FROM axle_postings(NEW.fts) p;
  END IF;
  RETURN NULL;
END;
$$;
CREATE TRIGGER learning_terms_insert AFTER INSERT ON learnings
  FOR EACH ROW WHEN (NEW.fts IS NOT NULL) EXECUTE FUNCTION learning_terms();
CREATE TRIGGER learning_terms_update AFTER UPDATE OF id, status, title, body, tags, task_context, fts, fts_len ON learnings
  FOR EACH ROW WHEN (OLD.id IS DISTINCT FROM NEW.id OR OLD.fts IS DISTINCT FROM NEW.fts OR OLD.fts_len IS DISTINCT FROM NEW.fts_len)
  EXECUTE FUNCTION learning_terms();
CREATE TRIGGER learning_terms_delete AFTER DELETE ON learnings
  FOR EACH ROW WHEN (OLD.fts IS NOT NULL) EXECUTE FUNCTION learning_terms();
