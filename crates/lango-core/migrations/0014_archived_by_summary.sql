-- Archived messages by the summary row that replaced them. Two reads need it, and both
-- scanned every archived row of the session without it, so they grew with the
-- conversation: linking a compaction's rows to its new summary (`summary_id IS NULL`,
-- inside the write transaction every send waits for) and the range of messages each live
-- summary stands for (read when the prompt is assembled). `kind` and `seq` make the
-- second a read of the index alone.
CREATE INDEX archived_by_summary ON archived_messages (summary_id, session_id, kind, seq);
