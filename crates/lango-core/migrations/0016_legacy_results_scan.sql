-- Rows written before migration 0015 keep a large tool result inline in `tool_calls`, so
-- every page, history tail and inspection of their conversation still parses megabytes. The
-- store moves such results beside their rows in the background (store::legacy_results), a
-- span of ids at a time, `messages` first, then `archived_messages` (a row archived meanwhile
-- moves with its columns). `next_id`: where the scan of the table goes on; `end_id`: its
-- newest id when this ran — rows written since are split when written. A table's row is
-- deleted once scanned, so a finished scan costs one read at start-up.
CREATE TABLE legacy_results_scan (
    tbl TEXT PRIMARY KEY CHECK (tbl IN ('messages', 'archived_messages')),
    next_id INTEGER NOT NULL,
    end_id INTEGER NOT NULL
);
INSERT INTO legacy_results_scan (tbl, next_id, end_id)
    SELECT 'messages', 0, max(id) FROM messages HAVING max(id) IS NOT NULL;
INSERT INTO legacy_results_scan (tbl, next_id, end_id)
    SELECT 'archived_messages', 0, max(id) FROM archived_messages HAVING max(id) IS NOT NULL;
