-- Accents folded in the lexical indexes as SQLite's unicode61 tokenizer folds them: a Latin letter loses its
-- diacritics (`Pokémon` is indexed and searched as `pokemon`), other scripts keep their marks (`й` is no `и`). The
-- text is decomposed (NFD), the combining diacritical marks after a Latin letter dropped, and the rest recomposed
-- (NFC). axle_words makes the words of documents and queries alike, so both fold. Unicode normalization needs a UTF8
-- database: in another encoding nothing changes.
DO $$
BEGIN
  IF getdatabaseencoding() = 'UTF8' THEN
    CREATE OR REPLACE FUNCTION axle_words(t text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
      RETURN regexp_replace(
        lower(normalize(regexp_replace(normalize(t, NFD), '([A-Za-z])[\u0300-\u036f]+', '\1', 'g'), NFC)),
        '[^[:alnum:]]+', ' ', 'g');
    -- The approved learnings indexed again (the learnings_fts trigger, and learning_terms after it).
    UPDATE learnings SET title = title WHERE fts IS NOT NULL;
    -- The skills' index is written by the catalog import: its fingerprint forgotten, the next start imports it again.
    DELETE FROM meta WHERE key = 'catalog_fingerprint';
  END IF;
END
$$;
