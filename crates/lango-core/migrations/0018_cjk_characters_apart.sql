-- Chinese and Japanese are written without spaces, and FTS5's unicode61 tokenizer takes a
-- whole unspaced run as one word, found only from its start: "编程" was not found in
-- "我喜欢编程". Messages and memory notes are now indexed with each such character spaced
-- apart (`store::cjk`, `store::note_index`). Those indexed before hold a run as one word:
-- the store walks each table's ids up to its newest one when this ran, a span at a time,
-- queues such messages again (the search indexing puts them back spaced) and sets such
-- notes' search rows spaced (`store::cjk_reindex`). A GLOB for the
-- characters here would read every message's whole text in one statement (1M messages:
-- 9 s); the walk reads only the texts that are not ASCII, in short transactions.
-- `next_id`: where the walk of the table goes on; a table's row is deleted once walked.
CREATE TABLE cjk_reindex_scan (
    tbl TEXT PRIMARY KEY
        CHECK (tbl IN ('messages', 'archived_messages', 'observations', 'reflections')),
    next_id INTEGER NOT NULL,
    end_id INTEGER NOT NULL
);
INSERT INTO cjk_reindex_scan (tbl, next_id, end_id)
    SELECT 'messages', 0, max(id) FROM messages HAVING max(id) IS NOT NULL;
INSERT INTO cjk_reindex_scan (tbl, next_id, end_id)
    SELECT 'archived_messages', 0, max(id) FROM archived_messages HAVING max(id) IS NOT NULL;
INSERT INTO cjk_reindex_scan (tbl, next_id, end_id)
    SELECT 'observations', 0, max(rowid) FROM observations HAVING max(rowid) IS NOT NULL;
INSERT INTO cjk_reindex_scan (tbl, next_id, end_id)
    SELECT 'reflections', 0, max(rowid) FROM reflections HAVING max(rowid) IS NOT NULL;
