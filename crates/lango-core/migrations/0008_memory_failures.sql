-- The last failure of a session's memory cycle (observer or reflector), so `lango memory
-- status` and the app can say what went wrong, when, and that it will be retried — from any
-- process, after the one that failed has exited. Cleared by the next cycle that succeeds.
CREATE TABLE memory_failures (
    session_id  INTEGER PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
    error       TEXT    NOT NULL,
    failed_at   INTEGER NOT NULL
);
