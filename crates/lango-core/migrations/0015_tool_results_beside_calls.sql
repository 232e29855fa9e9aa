-- A tool row's large results, beside its calls rather than in them: the calls' JSON is read
-- with every page of a conversation, history tail and inspection, and a few big file reads
-- made each of those parse megabytes (20 results of 2 MB: a page 83-108 ms instead of 5-8).
-- A result over 64 KB stays in `tool_calls` as its first 16 KB and its size in bytes; the
-- whole one is here, in a JSON array by the call's position (null where nothing was cut),
-- read only when asked for ("Show all", saving it, a JSON export). NULL = nothing cut.
-- Rows written before keep their whole results inline and are still read as they are.
ALTER TABLE messages ADD COLUMN tool_results TEXT;
ALTER TABLE archived_messages ADD COLUMN tool_results TEXT;
