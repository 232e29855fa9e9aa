-- Which attachments (migration 0012) a message carries: a JSON array of
-- {"hash","name","kind","mime","size","tokenCount"} in the order they were attached, on
-- messages and archived_messages (compaction carries it into the archive). NULL = none.
-- The message's token_count includes the attachments' estimated cost.
ALTER TABLE messages ADD COLUMN attachments TEXT
    CHECK (attachments IS NULL OR (json_valid(attachments) AND json_type(attachments) = 'array'));
ALTER TABLE archived_messages ADD COLUMN attachments TEXT
    CHECK (attachments IS NULL OR (json_valid(attachments) AND json_type(attachments) = 'array'));
