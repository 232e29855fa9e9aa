-- Conversations imported from another app's data export (ChatGPT, Claude), so importing the
-- same file again adds no duplicate: one row per (source, the source's conversation id),
-- pointing at the Lango session that holds it. Deleting the session deletes the row (so a
-- later import brings the conversation back).
--
-- `last_message_id` is the source's id of the newest message imported and `next_seq` the
-- session's next_seq right after that import: a re-import appends only the messages after
-- `last_message_id`, and only while nothing was added in Lango since (next_seq unchanged).
CREATE TABLE imported_conversations (
    source          TEXT    NOT NULL CHECK (source IN ('chatgpt', 'claude')),
    external_id     TEXT    NOT NULL CHECK (length(external_id) > 0),
    session_id      INTEGER NOT NULL UNIQUE REFERENCES sessions (id) ON DELETE CASCADE,
    last_message_id TEXT    NOT NULL,
    message_count   INTEGER NOT NULL,
    next_seq        INTEGER NOT NULL,
    imported_at     INTEGER NOT NULL,
    PRIMARY KEY (source, external_id)
);
