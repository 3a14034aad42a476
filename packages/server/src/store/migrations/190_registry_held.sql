-- The catalog screen's verdict on each synced server version: the names of the rules that hold it, comma
-- separated; empty when it passed; NULL for a version stored before the screen existed, which the next sync
-- screens. Only versions with an empty verdict become skills. The generation moves so every instance
-- re-imports its catalog without the unscreened versions, and the last success is forgotten so the scheduled
-- sync runs (and screens them) at once.
ALTER TABLE registry_servers ADD COLUMN held TEXT;
UPDATE registry_sync_state SET generation = generation + 1, last_success_at = NULL;
