-- The words a search expands the word being typed into (migration 0009) are compared with
-- the typed word folded in Rust (`store::snippet::fold`), and the expanded words go back
-- into an FTS5 query. Until this migration that fold decomposed every letter and dropped
-- the marks: Hangul syllables became their jamo and Japanese で became て — words the index
-- never holds, so a search for Korean text, or a Japanese word with a voiced sound, found
-- nothing. The fold now changes Latin letters only, as FTS5 does; the words outside ASCII
-- are taken again from the index itself (ASCII words were always folded alike). Messages
-- still queued for indexing add theirs when indexed. Every word outside ASCII sorts after
-- char(128) (its UTF-8 starts with a byte of 0xC2 or more), so the ASCII words' entries in
-- the index are never read (1M messages: 0.56 s reading all of them, for nothing).
DELETE FROM search_terms WHERE term >= char(128);

CREATE VIRTUAL TABLE search_terms_vocab USING fts5vocab (message_fts, 'col');
INSERT OR IGNORE INTO search_terms (term)
    SELECT term FROM search_terms_vocab
     WHERE col = 'text' AND term >= char(128);
DROP TABLE search_terms_vocab;
