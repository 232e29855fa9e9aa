-- A per-session version of everything the prompt's memory and knowledge sections are built
-- from (observations, reflections, the compaction archive), so context assembly can keep the
-- assembled memory section and reuse it until the memory changes — also when another process
-- (the CLI next to the desktop app) changed it.
--
-- Versions come from one global clock, so a value names one state of one session: a session
-- deleted and created again under the same key never matches a version cached for the old
-- one. 0 = the session's memory was never written (nothing to show).

ALTER TABLE sessions ADD COLUMN memory_version INTEGER NOT NULL DEFAULT 0;

CREATE TABLE memory_clock (
    id    INTEGER PRIMARY KEY CHECK (id = 1),
    value INTEGER NOT NULL
);
INSERT INTO memory_clock (id, value) VALUES (1, 0);

-- Sessions that already have memory start at a version of their own (their id); the clock
-- continues above every id.
UPDATE sessions SET memory_version = id
 WHERE EXISTS (SELECT 1 FROM observations o WHERE o.session_id = sessions.id)
    OR EXISTS (SELECT 1 FROM reflections r WHERE r.session_id = sessions.id)
    OR EXISTS (SELECT 1 FROM archived_messages a WHERE a.session_id = sessions.id);
UPDATE memory_clock SET value = (SELECT COALESCE(MAX(id), 0) FROM sessions);

CREATE TRIGGER observations_version_insert AFTER INSERT ON observations BEGIN
    UPDATE memory_clock SET value = value + 1;
    UPDATE sessions SET memory_version = (SELECT value FROM memory_clock) WHERE id = new.session_id;
END;
CREATE TRIGGER observations_version_update AFTER UPDATE ON observations BEGIN
    UPDATE memory_clock SET value = value + 1;
    UPDATE sessions SET memory_version = (SELECT value FROM memory_clock)
     WHERE id IN (old.session_id, new.session_id);
END;
CREATE TRIGGER observations_version_delete AFTER DELETE ON observations BEGIN
    UPDATE memory_clock SET value = value + 1;
    UPDATE sessions SET memory_version = (SELECT value FROM memory_clock) WHERE id = old.session_id;
END;

CREATE TRIGGER reflections_version_insert AFTER INSERT ON reflections BEGIN
    UPDATE memory_clock SET value = value + 1;
    UPDATE sessions SET memory_version = (SELECT value FROM memory_clock) WHERE id = new.session_id;
END;
CREATE TRIGGER reflections_version_update AFTER UPDATE ON reflections BEGIN
    UPDATE memory_clock SET value = value + 1;
    UPDATE sessions SET memory_version = (SELECT value FROM memory_clock)
     WHERE id IN (old.session_id, new.session_id);
END;
CREATE TRIGGER reflections_version_delete AFTER DELETE ON reflections BEGIN
    UPDATE memory_clock SET value = value + 1;
    UPDATE sessions SET memory_version = (SELECT value FROM memory_clock) WHERE id = old.session_id;
END;

CREATE TRIGGER archived_version_insert AFTER INSERT ON archived_messages BEGIN
    UPDATE memory_clock SET value = value + 1;
    UPDATE sessions SET memory_version = (SELECT value FROM memory_clock) WHERE id = new.session_id;
END;
CREATE TRIGGER archived_version_delete AFTER DELETE ON archived_messages BEGIN
    UPDATE memory_clock SET value = value + 1;
    UPDATE sessions SET memory_version = (SELECT value FROM memory_clock) WHERE id = old.session_id;
END;

-- An edited observation or reflection loses its vector: it no longer describes the text
-- (the memory cycle embeds the new text).
CREATE TRIGGER observations_edit_vector AFTER UPDATE OF content ON observations
    WHEN old.content IS NOT new.content BEGIN
    DELETE FROM memory_vectors WHERE collection = 'observation' AND item_id = old.id;
END;
CREATE TRIGGER reflections_edit_vector AFTER UPDATE OF content ON reflections
    WHEN old.content IS NOT new.content BEGIN
    DELETE FROM memory_vectors WHERE collection = 'reflection' AND item_id = old.id;
END;
