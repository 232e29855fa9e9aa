-- Sessions and their messages: everything a conversation needs to be shown and continued.
-- Timestamps are Unix milliseconds (UTC).

CREATE TABLE sessions (
    id          INTEGER PRIMARY KEY,
    key         TEXT    NOT NULL UNIQUE CHECK (length(key) > 0),
    title       TEXT    NOT NULL DEFAULT '',
    model       TEXT    NOT NULL DEFAULT '',
    pinned      INTEGER NOT NULL DEFAULT 0 CHECK (pinned IN (0, 1)),
    -- the agent's session state, a JSON object that round-trips exactly
    state       TEXT    NOT NULL DEFAULT '{}' CHECK (json_valid(state)),
    -- next value of messages.seq; bumped in the same transaction as the insert, so seq is
    -- monotonic per session even under concurrent appends
    next_seq    INTEGER NOT NULL DEFAULT 1,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
);

CREATE INDEX sessions_by_activity ON sessions (pinned DESC, updated_at DESC, id DESC);

-- AUTOINCREMENT so a message id is never reused: archived rows keep their id.
CREATE TABLE messages (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id  INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    seq         INTEGER NOT NULL,
    role        TEXT    NOT NULL,
    author      TEXT    NOT NULL DEFAULT '',
    content     TEXT    NOT NULL DEFAULT '',
    -- JSON array of {id, name, input?, output?, thought?, thoughtSignature?} (REFERENCE §2.1)
    tool_calls  TEXT    NOT NULL DEFAULT '[]' CHECK (json_valid(tool_calls)),
    status      TEXT    NOT NULL DEFAULT 'complete'
                CHECK (status IN ('complete', 'partial', 'interrupted', 'error')),
    -- cost under the store's token counter, so a budgeted tail load never re-tokenises
    token_count INTEGER NOT NULL DEFAULT 0,
    created_at  INTEGER NOT NULL,
    UNIQUE (session_id, seq)
);

-- An insert advances its session: next_seq past the new row and updated_at to the message's
-- time. Being part of the INSERT statement, it is atomic with it, so an append is a single
-- statement (one round trip) instead of a four-statement transaction.
CREATE TRIGGER messages_advance_session AFTER INSERT ON messages BEGIN
    UPDATE sessions
       SET next_seq = MAX(next_seq, new.seq + 1),
           updated_at = MAX(updated_at, new.created_at)
     WHERE id = new.session_id;
END;
