-- Observational memory, the compaction archive and full-text search.

-- Messages whose seq is <= this have been observed. Durable, so a restart never re-observes
-- or skips messages (REFERENCE §3.10).
ALTER TABLE sessions ADD COLUMN observed_through_seq INTEGER NOT NULL DEFAULT 0;

-- 'summary' rows are inserted by compaction in place of the rows they replace.
ALTER TABLE messages ADD COLUMN kind TEXT NOT NULL DEFAULT 'message'
    CHECK (kind IN ('message', 'summary'));

-- A compaction summary is not activity: it must not move the session up the list.
DROP TRIGGER messages_advance_session;
CREATE TRIGGER messages_advance_session AFTER INSERT ON messages BEGIN
    UPDATE sessions
       SET next_seq = MAX(next_seq, new.seq + 1),
           updated_at = CASE new.kind WHEN 'message' THEN MAX(updated_at, new.created_at) ELSE updated_at END
     WHERE id = new.session_id;
END;

-- Rows compaction took out of the model's history. Kept for display and search; never sent
-- to the model again. Only deleting the session destroys them.
CREATE TABLE archived_messages (
    id          INTEGER PRIMARY KEY,          -- the id the row had in messages
    session_id  INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    seq         INTEGER NOT NULL,
    role        TEXT    NOT NULL,
    author      TEXT    NOT NULL DEFAULT '',
    content     TEXT    NOT NULL DEFAULT '',
    tool_calls  TEXT    NOT NULL DEFAULT '[]',
    status      TEXT    NOT NULL DEFAULT 'complete',
    token_count INTEGER NOT NULL DEFAULT 0,
    kind        TEXT    NOT NULL DEFAULT 'message',
    created_at  INTEGER NOT NULL,
    archived_at INTEGER NOT NULL,
    summary_id  INTEGER                        -- the summary row that replaced it
);

CREATE INDEX archived_by_session ON archived_messages (session_id, seq);

CREATE TABLE observations (
    id          TEXT    PRIMARY KEY,
    session_id  INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    content     TEXT    NOT NULL CHECK (length(content) > 0),
    token_count INTEGER NOT NULL DEFAULT 0,
    -- the messages this observation covers, by seq (inclusive)
    seq_start   INTEGER NOT NULL,
    seq_end     INTEGER NOT NULL CHECK (seq_end >= seq_start),
    created_at  INTEGER NOT NULL
);

CREATE INDEX observations_by_session ON observations (session_id, created_at);

CREATE TABLE reflections (
    id                 TEXT    PRIMARY KEY,
    session_id         INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    content            TEXT    NOT NULL CHECK (length(content) > 0),
    token_count        INTEGER NOT NULL DEFAULT 0,
    generation         INTEGER NOT NULL DEFAULT 1 CHECK (generation >= 1),
    -- what it condensed: message seq range and the tokens of the condensed items
    seq_start          INTEGER NOT NULL DEFAULT 0,
    seq_end            INTEGER NOT NULL DEFAULT 0,
    source_token_count INTEGER NOT NULL DEFAULT 0,
    created_at         INTEGER NOT NULL
);

CREATE INDEX reflections_by_session ON reflections (session_id, created_at);

-- Full-text search. A message is indexed once, under its id, wherever it lives (history or
-- archive); observations and reflections under their rowid. Compaction summaries are not
-- indexed: the rows they stand for are.
CREATE VIRTUAL TABLE message_fts USING fts5 (
    text, session_id UNINDEXED, tokenize = 'unicode61 remove_diacritics 2'
);
CREATE VIRTUAL TABLE observation_fts USING fts5 (
    text, session_id UNINDEXED, tokenize = 'unicode61 remove_diacritics 2'
);
CREATE VIRTUAL TABLE reflection_fts USING fts5 (
    text, session_id UNINDEXED, tokenize = 'unicode61 remove_diacritics 2'
);

INSERT INTO message_fts (rowid, text, session_id)
    SELECT id, content, session_id FROM messages WHERE content <> '';

CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages
    WHEN new.content <> '' AND new.kind = 'message' BEGIN
    INSERT INTO message_fts (rowid, text, session_id) VALUES (new.id, new.content, new.session_id);
END;
CREATE TRIGGER messages_fts_update AFTER UPDATE OF content ON messages BEGIN
    DELETE FROM message_fts WHERE rowid = old.id;
    INSERT INTO message_fts (rowid, text, session_id)
        SELECT new.id, new.content, new.session_id WHERE new.content <> '' AND new.kind = 'message';
END;
-- Moving a row to the archive keeps its index entry (the archive row is inserted first).
CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages
    WHEN NOT EXISTS (SELECT 1 FROM archived_messages WHERE id = old.id) BEGIN
    DELETE FROM message_fts WHERE rowid = old.id;
END;
CREATE TRIGGER archived_fts_delete AFTER DELETE ON archived_messages BEGIN
    DELETE FROM message_fts WHERE rowid = old.id;
END;

CREATE TRIGGER observations_fts_insert AFTER INSERT ON observations BEGIN
    INSERT INTO observation_fts (rowid, text, session_id) VALUES (new.rowid, new.content, new.session_id);
END;
CREATE TRIGGER observations_fts_update AFTER UPDATE OF content ON observations BEGIN
    DELETE FROM observation_fts WHERE rowid = old.rowid;
    INSERT INTO observation_fts (rowid, text, session_id) VALUES (new.rowid, new.content, new.session_id);
END;
CREATE TRIGGER observations_fts_delete AFTER DELETE ON observations BEGIN
    DELETE FROM observation_fts WHERE rowid = old.rowid;
END;

CREATE TRIGGER reflections_fts_insert AFTER INSERT ON reflections BEGIN
    INSERT INTO reflection_fts (rowid, text, session_id) VALUES (new.rowid, new.content, new.session_id);
END;
CREATE TRIGGER reflections_fts_update AFTER UPDATE OF content ON reflections BEGIN
    DELETE FROM reflection_fts WHERE rowid = old.rowid;
    INSERT INTO reflection_fts (rowid, text, session_id) VALUES (new.rowid, new.content, new.session_id);
END;
CREATE TRIGGER reflections_fts_delete AFTER DELETE ON reflections BEGIN
    DELETE FROM reflection_fts WHERE rowid = old.rowid;
END;
