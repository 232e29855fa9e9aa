-- Knowledge retrieval searches one session before every model call. With `session_id`
-- UNINDEXED, FTS5 matched the query against every session's rows and the session filter came
-- after: a search cost grew with the whole database (measured: 100 sessions of 500 messages,
-- 74 ms). Indexed, the session is part of the match (`... AND session_id : "7"`) and only
-- that session's rows are ranked (10 ms on the same data). Text queries name their column
-- (`text : (...)`) so a number never matches a session id, and BM25 weighs the session
-- column 0.
--
-- The three indexes are rebuilt from the rows they index; messages still queued for
-- indexing (migration 0005) stay queued.

DROP TABLE message_fts;
CREATE VIRTUAL TABLE message_fts USING fts5 (
    text, session_id, tokenize = 'unicode61 remove_diacritics 2'
);
INSERT INTO message_fts (rowid, text, session_id)
    SELECT id, content, session_id FROM messages
     WHERE content <> '' AND kind = 'message'
       AND id NOT IN (SELECT id FROM message_fts_pending)
    UNION ALL
    SELECT id, content, session_id FROM archived_messages
     WHERE content <> '' AND kind = 'message'
       AND id NOT IN (SELECT id FROM message_fts_pending);

DROP TABLE observation_fts;
CREATE VIRTUAL TABLE observation_fts USING fts5 (
    text, session_id, tokenize = 'unicode61 remove_diacritics 2'
);
INSERT INTO observation_fts (rowid, text, session_id)
    SELECT rowid, content, session_id FROM observations;

DROP TABLE reflection_fts;
CREATE VIRTUAL TABLE reflection_fts USING fts5 (
    text, session_id, tokenize = 'unicode61 remove_diacritics 2'
);
INSERT INTO reflection_fts (rowid, text, session_id)
    SELECT rowid, content, session_id FROM reflections;
