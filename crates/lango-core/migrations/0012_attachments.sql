-- Files attached to messages (images, PDFs, text and code files), stored once each: the key
-- is the SHA-256 (lower-case hex) of the original file's bytes, so attaching the same file
-- again, in any conversation, adds no row.
--
-- What is kept is what the models are sent, not the original file:
--   image: `data` is the prepared image (scaled down to ≤ 1568 px, re-encoded, no metadata)
--          of type `data_mime`; `width`/`height` are its size, `original_width`/`_height`
--          the original's (upright).
--   pdf, text: `text` is the extracted or decoded text (cut at 4 MiB, `text_truncated`);
--          `pages` is a PDF's page count.
-- `mime`, `name` and `size` describe the original file (`name` as first attached).
-- `token_count` is the estimated cost of sending it (attachments::tokens).
--
-- Nothing links messages to rows yet and nothing deletes them: the next version adds the
-- link (and removes rows no message refers to any more).
CREATE TABLE attachments (
    hash            TEXT    PRIMARY KEY NOT NULL
                    CHECK (length(hash) = 64 AND hash NOT GLOB '*[^0-9a-f]*'),
    kind            TEXT    NOT NULL CHECK (kind IN ('image', 'pdf', 'text')),
    mime            TEXT    NOT NULL CHECK (length(mime) > 0),
    name            TEXT    NOT NULL CHECK (length(name) > 0),
    size            INTEGER NOT NULL CHECK (size > 0),
    width           INTEGER,
    height          INTEGER,
    original_width  INTEGER,
    original_height INTEGER,
    data_mime       TEXT,
    data            BLOB,
    text            TEXT,
    text_truncated  INTEGER NOT NULL DEFAULT 0 CHECK (text_truncated IN (0, 1)),
    pages           INTEGER CHECK (pages IS NULL OR (kind = 'pdf' AND pages >= 0)),
    token_count     INTEGER NOT NULL CHECK (token_count >= 0),
    created_at      INTEGER NOT NULL,
    -- An image has its pixels and sizes and no text; a PDF or text file the reverse.
    CHECK (CASE kind
        WHEN 'image' THEN data IS NOT NULL AND data_mime IN ('image/png', 'image/jpeg', 'image/webp', 'image/gif')
            AND coalesce(width, 0) > 0 AND coalesce(height, 0) > 0
            AND coalesce(original_width, 0) > 0 AND coalesce(original_height, 0) > 0
            AND text IS NULL
        ELSE text IS NOT NULL AND data IS NULL AND data_mime IS NULL
            AND width IS NULL AND height IS NULL AND original_width IS NULL AND original_height IS NULL
        END)
);
