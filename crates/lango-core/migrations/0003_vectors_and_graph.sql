-- Embedding vectors and the knowledge graph of observational memory (REFERENCE §3.9).

-- One vector per (collection, item). Vectors are little-endian f32 arrays of `dims` values.
CREATE TABLE memory_vectors (
    session_id  INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    collection  TEXT    NOT NULL CHECK (collection IN ('message', 'observation', 'reflection')),
    item_id     TEXT    NOT NULL,
    model       TEXT    NOT NULL DEFAULT '',
    dims        INTEGER NOT NULL CHECK (dims >= 0),
    vector      BLOB    NOT NULL CHECK (length(vector) = dims * 4),
    created_at  INTEGER NOT NULL,
    PRIMARY KEY (collection, item_id)
);

CREATE INDEX memory_vectors_by_session ON memory_vectors (session_id, collection);

-- Subject --predicate--> object, e.g. observation:<id> --in_session--> session:<key>.
CREATE TABLE memory_triples (
    id          INTEGER PRIMARY KEY,
    session_id  INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    subject     TEXT    NOT NULL,
    predicate   TEXT    NOT NULL,
    object      TEXT    NOT NULL,
    created_at  INTEGER NOT NULL,
    UNIQUE (subject, predicate, object)
);

CREATE INDEX memory_triples_by_session ON memory_triples (session_id);

-- [FIX] A deleted observation or reflection takes its vector with it.
CREATE TRIGGER observations_delete_vector AFTER DELETE ON observations BEGIN
    DELETE FROM memory_vectors WHERE collection = 'observation' AND item_id = old.id;
END;

CREATE TRIGGER reflections_delete_vector AFTER DELETE ON reflections BEGIN
    DELETE FROM memory_vectors WHERE collection = 'reflection' AND item_id = old.id;
END;
