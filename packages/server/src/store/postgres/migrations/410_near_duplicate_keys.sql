-- Near-duplicate band keys are rebuilt once: words in scripts written without spaces (Chinese, Japanese, Thai…)
-- became single letters, so the learning_lsh keys of learnings in those scripts changed. The value is the last
-- learning id rebuilt ('' before the first); services/near-duplicate-keys.ts removes the row when done.
INSERT INTO meta (key, value) VALUES ('near_duplicate_keys_rebuild_after', '') ON CONFLICT (key) DO NOTHING;
