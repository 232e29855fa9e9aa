-- Search indexing of messages moves off the append path.
--
-- FTS5 writes a new index segment per committed transaction: indexing a message in the
-- transaction that appends it cost ~140 µs of a ~160 µs append (measured), capping durable
-- appends far below what streaming chats and imports need. New and edited messages are now
-- queued here by id and indexed in one batch right before anything reads the index
-- (`Store::index_pending_messages`, called by every search). A queued id is indexed from
-- wherever the row then lives (history or archive), with its text at that moment.
CREATE TABLE message_fts_pending (
    id INTEGER PRIMARY KEY   -- a messages / archived_messages id
);

DROP TRIGGER messages_fts_insert;
CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages
    WHEN new.content <> '' AND new.kind = 'message' BEGIN
    INSERT OR IGNORE INTO message_fts_pending (id) VALUES (new.id);
END;

-- The old text leaves the index at once (a search must never find words a message no
-- longer has); the new text is queued.
DROP TRIGGER messages_fts_update;
CREATE TRIGGER messages_fts_update AFTER UPDATE OF content ON messages BEGIN
    DELETE FROM message_fts WHERE rowid = old.id;
    DELETE FROM message_fts_pending WHERE id = old.id;
    INSERT INTO message_fts_pending (id)
        SELECT new.id WHERE new.content <> '' AND new.kind = 'message';
END;

-- Moving a row to the archive keeps its index entry or its place in the queue (the archive
-- row is inserted first).
DROP TRIGGER messages_fts_delete;
CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages
    WHEN NOT EXISTS (SELECT 1 FROM archived_messages WHERE id = old.id) BEGIN
    DELETE FROM message_fts WHERE rowid = old.id;
    DELETE FROM message_fts_pending WHERE id = old.id;
END;
DROP TRIGGER archived_fts_delete;
CREATE TRIGGER archived_fts_delete AFTER DELETE ON archived_messages BEGIN
    DELETE FROM message_fts WHERE rowid = old.id;
    DELETE FROM message_fts_pending WHERE id = old.id;
END;
