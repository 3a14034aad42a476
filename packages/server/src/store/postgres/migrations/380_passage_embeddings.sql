-- from SQLite 380_passage_embeddings.sql: vectors of passages the bundled vectors file lacks, by the text's hash.
CREATE TABLE passage_embeddings (
  model TEXT NOT NULL,
  text_hash TEXT NOT NULL,
  vector BYTEA NOT NULL,
  PRIMARY KEY (model, text_hash)
);
