-- Vectors of passages (a tool, an example, a sentence: search/passages.ts) the bundled vectors file lacks, computed
-- for an operator's catalog of MCP servers with tools. Keyed by the passage text's hash: skills that share a passage
-- share its row, and a catalog change recomputes only new passages.
CREATE TABLE passage_embeddings (
  model TEXT NOT NULL,
  text_hash TEXT NOT NULL,
  vector BLOB NOT NULL,
  PRIMARY KEY (model, text_hash)
);
