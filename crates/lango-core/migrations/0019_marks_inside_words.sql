-- FTS5's unicode61 tokenizer counts letters, digits and private-use characters as parts of
-- a word but not combining marks (save the Latin accents, which it folds away): Hindi,
-- Bengali, Tamil and the other scripts that write vowels as marks were indexed as their
-- consonants alone, so "पानी" (water) found "पीना" (to drink). Messages and notes are now
-- indexed with each mark inside a word as a private-use character (`store::marks`; the
-- Arabic and Hebrew vowel points, optional in writing, dropped as accents are); and
-- Thai, Lao, Khmer and Burmese, written without spaces, with each letter spaced apart (its
-- marks on it) as Chinese and Japanese are since 0018 (`store::unspaced`), so "ภาษาไทย" is
-- found inside "ฉันชอบภาษาไทยมาก" (`store::index_form`). Those indexed before are indexed
-- anew by the walk of migration 0018 (`store::reindex_walk`), started again here over every
-- table, which now takes up every text the index holds in another form; a walk still under
-- way starts over.
INSERT OR REPLACE INTO cjk_reindex_scan (tbl, next_id, end_id)
    SELECT 'messages', 0, max(id) FROM messages HAVING max(id) IS NOT NULL;
INSERT OR REPLACE INTO cjk_reindex_scan (tbl, next_id, end_id)
    SELECT 'archived_messages', 0, max(id) FROM archived_messages HAVING max(id) IS NOT NULL;
INSERT OR REPLACE INTO cjk_reindex_scan (tbl, next_id, end_id)
    SELECT 'observations', 0, max(rowid) FROM observations HAVING max(rowid) IS NOT NULL;
INSERT OR REPLACE INTO cjk_reindex_scan (tbl, next_id, end_id)
    SELECT 'reflections', 0, max(rowid) FROM reflections HAVING max(rowid) IS NOT NULL;
