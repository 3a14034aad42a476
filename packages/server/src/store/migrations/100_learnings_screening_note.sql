-- Why a learning was screened by the regex screens alone (the sentence model was busy, slow or not ready when it
-- was submitted); null when every screen ran. Shown to the reviewer with the held item.
ALTER TABLE learnings ADD COLUMN screening_note TEXT;
