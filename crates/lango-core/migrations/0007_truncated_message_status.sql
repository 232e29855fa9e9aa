-- A reply the provider ended at the output token limit is stored as 'truncated': complete as
-- sent, but cut short, so the app and the CLI can say so and offer to continue it.
--
-- SQLite cannot change a CHECK constraint in place, so `messages` is rebuilt with the same
-- columns, rows, ids and triggers (SQLite's documented table-rebuild procedure). Nothing
-- references `messages` by foreign key; its triggers are dropped with it and recreated below
-- exactly as migrations 0002 and 0005 left them. The AUTOINCREMENT counter is carried over:
-- archived rows keep ids above the rows still here, and an id must never be reused.

CREATE TABLE messages_new (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id  INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    seq         INTEGER NOT NULL,
    role        TEXT    NOT NULL,
    author      TEXT    NOT NULL DEFAULT '',
    content     TEXT    NOT NULL DEFAULT '',
    -- JSON array of {id, name, input?, output?, thought?, thoughtSignature?} (REFERENCE §2.1)
    tool_calls  TEXT    NOT NULL DEFAULT '[]' CHECK (json_valid(tool_calls)),
    status      TEXT    NOT NULL DEFAULT 'complete'
                CHECK (status IN ('complete', 'partial', 'interrupted', 'error', 'truncated')),
    -- cost under the store's token counter, so a budgeted tail load never re-tokenises
    token_count INTEGER NOT NULL DEFAULT 0,
    created_at  INTEGER NOT NULL,
    kind        TEXT    NOT NULL DEFAULT 'message' CHECK (kind IN ('message', 'summary')),
    UNIQUE (session_id, seq)
);

INSERT INTO messages_new
    (id, session_id, seq, role, author, content, tool_calls, status, token_count, created_at, kind)
    SELECT id, session_id, seq, role, author, content, tool_calls, status, token_count, created_at, kind
      FROM messages;

-- The copy set the new counter to the highest id still here; keep the old one when higher.
UPDATE sqlite_sequence
   SET seq = MAX(seq, COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'messages'), 0))
 WHERE name = 'messages_new';
INSERT INTO sqlite_sequence (name, seq)
    SELECT 'messages_new', seq FROM sqlite_sequence
     WHERE name = 'messages'
       AND NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'messages_new');

DROP TABLE messages;
ALTER TABLE messages_new RENAME TO messages;

CREATE TRIGGER messages_advance_session AFTER INSERT ON messages BEGIN
    UPDATE sessions
       SET next_seq = MAX(next_seq, new.seq + 1),
           updated_at = CASE new.kind WHEN 'message' THEN MAX(updated_at, new.created_at) ELSE updated_at END
     WHERE id = new.session_id;
END;

CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages
    WHEN new.content <> '' AND new.kind = 'message' BEGIN
    INSERT OR IGNORE INTO message_fts_pending (id) VALUES (new.id);
END;

CREATE TRIGGER messages_fts_update AFTER UPDATE OF content ON messages BEGIN
    DELETE FROM message_fts WHERE rowid = old.id;
    DELETE FROM message_fts_pending WHERE id = old.id;
    INSERT INTO message_fts_pending (id)
        SELECT new.id WHERE new.content <> '' AND new.kind = 'message';
END;

CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages
    WHEN NOT EXISTS (SELECT 1 FROM archived_messages WHERE id = old.id) BEGIN
    DELETE FROM message_fts WHERE rowid = old.id;
    DELETE FROM message_fts_pending WHERE id = old.id;
END;
