-- Every word the messages' search index holds, for the word being typed in a search.
--
-- FTS5 answers a prefix query ("proj"*) by first merging the full match lists of every
-- indexed word with that prefix: for a word in half of a million messages that is
-- 100–300 ms, even for the newest 1000 matches (measured). An OR of whole words streams
-- instead, newest first, and stops at the limit (< 1 ms). The search expands the last word
-- into the words here that start with it (`store::search`). Filled as messages are indexed
-- (`store::search_index`); a word no message holds any more is harmless (it matches
-- nothing), so nothing is ever removed.
CREATE TABLE search_terms (
    term TEXT PRIMARY KEY
) WITHOUT ROWID;

-- The words already indexed, from the index itself.
CREATE VIRTUAL TABLE search_terms_vocab USING fts5vocab (message_fts, 'col');
INSERT OR IGNORE INTO search_terms (term)
    SELECT term FROM search_terms_vocab WHERE col = 'text';
DROP TABLE search_terms_vocab;
