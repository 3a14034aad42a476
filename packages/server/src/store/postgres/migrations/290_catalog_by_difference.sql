-- The catalog is reloaded by difference (store/catalog-reload.ts): a skill inserted or removed mid-catalog moves the
-- positions after it, each a row written. Positions stay unique but are checked at commit, so one statement moves
-- them past each other (an immediate check needs every moved row written twice). skills.fts loses its GIN index:
-- search reads the postings (175_postings.sql), so no query used it, and every skill written paid for its entries.
ALTER TABLE skills DROP CONSTRAINT skills_position_key;
ALTER TABLE skills ADD CONSTRAINT skills_position_key UNIQUE (position) DEFERRABLE INITIALLY DEFERRED;
DROP INDEX skills_fts;
