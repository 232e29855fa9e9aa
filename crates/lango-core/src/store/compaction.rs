//! Compaction: moving the oldest rows of a session's model history to the archive and
//! putting one summary row in their place, atomically (spec 002 `compact_messages`).

use super::error::{StoreError, StoreResult};
use super::messages::message_cost;
use super::models::{MessageKind, MessageStatus, StoredMessage};
use super::write_tx::WriteTx;
use super::{now_ms, Store};

/// Prefix of a summary row's content, so a model reading the history knows what it is.
pub const SUMMARY_PREFIX: &str = "[Compacted Summary]\n";

/// A summary row of a session's model history and the rows it stands for: what context
/// assembly needs to tell whether the memory section already carries it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SummaryRow {
    /// Its content as sent, [`SUMMARY_PREFIX`] included.
    pub content: String,
    /// `seq` range of the plain messages archived behind it; None when none were (a
    /// compaction that moved nothing).
    pub archived: Option<(i64, i64)>,
}

/// The live summary rows of a session with the `seq` range of the messages each replaced
/// (linked by `archived_messages.summary_id`), oldest first.
const SUMMARY_ROWS: &str = "
SELECT m.content, MIN(a.seq), MAX(a.seq)
  FROM messages m
  LEFT JOIN archived_messages a
    ON a.session_id = m.session_id AND a.summary_id = m.id AND a.kind = 'message'
 WHERE m.session_id = (SELECT id FROM sessions WHERE key = ?) AND m.kind = 'summary'
 GROUP BY m.id
 ORDER BY m.seq";

/// Links the rows a compaction just archived to its new summary row (`?1`) in session `?2`.
/// Looked up by `archived_by_summary` (migration 0014): only the unlinked rows are read, not
/// the session's whole archive — this runs inside the write transaction sends wait for.
const LINK_TO_SUMMARY: &str =
    "UPDATE archived_messages SET summary_id = ?1 WHERE session_id = ?2 AND summary_id IS NULL";

impl Store {
    /// The session's live summary rows, each with the range of messages it replaced (see
    /// [`SummaryRow`]); an unknown key has none.
    pub async fn summary_rows(&self, key: &str) -> StoreResult<Vec<SummaryRow>> {
        let rows: Vec<(String, Option<i64>, Option<i64>)> = sqlx::query_as(SUMMARY_ROWS)
            .bind(key)
            .fetch_all(self.reader())
            .await
            .map_err(|e| self.err(e))?;
        Ok(rows
            .into_iter()
            .map(|(content, start, end)| SummaryRow {
                content,
                archived: start.zip(end),
            })
            .collect())
    }

    /// Replaces history positions `0..=up_to_index` (oldest first, by `seq`) with one summary
    /// row that sorts before every remaining row. `up_to_index == 0` moves nothing and still
    /// inserts the summary (spec 002 "Compact with no messages to delete"). An index at or past
    /// the end of the history → [`StoreError::OutOfRange`], and nothing changes.
    ///
    /// The moved rows go to `archived_messages` (still shown and searchable, never sent to the
    /// model again). Everything happens in one transaction: a crash leaves the old state or
    /// the new one, never a mix.
    pub async fn compact_messages(
        &self,
        key: &str,
        up_to_index: usize,
        summary: &str,
    ) -> StoreResult<StoredMessage> {
        // `begin_write` holds the write lock from here on: the positions we read cannot shift.
        let mut tx = self.begin_write().await?;
        let session_id = self.session_id(&mut *tx, key).await?;

        let boundary = if up_to_index > 0 {
            let offset = i64::try_from(up_to_index).unwrap_or(i64::MAX);
            let boundary: Option<i64> = sqlx::query_scalar(
                "SELECT seq FROM messages WHERE session_id = ? ORDER BY seq LIMIT 1 OFFSET ?",
            )
            .bind(session_id)
            .bind(offset)
            .fetch_optional(&mut *tx)
            .await
            .map_err(|e| self.err(e))?;
            let Some(boundary) = boundary else {
                let len: i64 =
                    sqlx::query_scalar("SELECT COUNT(*) FROM messages WHERE session_id = ?")
                        .bind(session_id)
                        .fetch_one(&mut *tx)
                        .await
                        .map_err(|e| self.err(e))?;
                return Err(StoreError::OutOfRange {
                    index: up_to_index,
                    len: usize::try_from(len).unwrap_or(0),
                });
            };
            Some(boundary)
        } else {
            None
        };
        let summary = self
            .archive_and_summarize(&mut tx, session_id, boundary, summary)
            .await?;
        tx.commit().await.map_err(|e| self.err(e))?;
        Ok(summary)
    }

    /// Inside `tx`: moves the session's history rows with `seq <= boundary` (None = none) to the
    /// archive and inserts one summary row sorting before every remaining row. Shared by
    /// `compact_messages` (boundary from a position) and `record_observation` (boundary = the
    /// last observed seq).
    pub(super) async fn archive_and_summarize(
        &self,
        tx: &mut WriteTx<'_>,
        session_id: i64,
        boundary: Option<i64>,
        summary: &str,
    ) -> StoreResult<StoredMessage> {
        let boundary = match boundary {
            Some(b) => self.unsplit_boundary(tx, session_id, b).await?,
            None => None,
        };
        if let Some(boundary) = boundary {
            // Archive first: the FTS delete trigger keeps the index entry of archived ids.
            sqlx::query(
                "INSERT INTO archived_messages
                     (id, session_id, seq, role, author, content, tool_calls, status, token_count, kind, created_at, reply, attachments, tool_results, archived_at)
                 SELECT id, session_id, seq, role, author, content, tool_calls, status, token_count, kind, created_at, reply, attachments, tool_results, ?
                 FROM messages WHERE session_id = ? AND seq <= ?",
            )
            .bind(now_ms())
            .bind(session_id)
            .bind(boundary)
            .execute(&mut **tx)
            .await
            .map_err(|e| self.err(e))?;
            sqlx::query("DELETE FROM messages WHERE session_id = ? AND seq <= ?")
                .bind(session_id)
                .bind(boundary)
                .execute(&mut **tx)
                .await
                .map_err(|e| self.err(e))?;
        }
        // The summary takes the seq just below the oldest remaining row (or the last
        // allocated one when nothing remains): it sorts first without a fake timestamp.
        let seq: i64 = sqlx::query_scalar(
            "SELECT COALESCE((SELECT MIN(seq) FROM messages WHERE session_id = ?1),
                             (SELECT next_seq FROM sessions WHERE id = ?1)) - 1",
        )
        .bind(session_id)
        .fetch_one(&mut **tx)
        .await
        .map_err(|e| self.err(e))?;
        let content = format!("{SUMMARY_PREFIX}{summary}");
        let tokens = message_cost(self, &content, &[]);
        let created_at = now_ms();
        let id: i64 = sqlx::query_scalar(
            "INSERT INTO messages (session_id, seq, role, author, content, kind, token_count, created_at)
             VALUES (?, ?, 'system', '', ?, 'summary', ?, ?) RETURNING id",
        )
        .bind(session_id)
        .bind(seq)
        .bind(&content)
        .bind(tokens)
        .bind(created_at)
        .fetch_one(&mut **tx)
        .await
        .map_err(|e| self.err(e))?;
        sqlx::query(LINK_TO_SUMMARY)
            .bind(id)
            .bind(session_id)
            .execute(&mut **tx)
            .await
            .map_err(|e| self.err(e))?;
        Ok(StoredMessage {
            id,
            seq,
            role: "system".into(),
            author: String::new(),
            content,
            tool_calls: Vec::new(),
            status: MessageStatus::Complete,
            kind: MessageKind::Summary,
            token_count: tokens,
            created_at,
            archived: false,
            reply: None,
            attachments: Vec::new(),
        })
    }

    /// `boundary`, moved back so that no tool result stays in the history without its call
    /// (issue 14 item 7: OpenAI and Anthropic answer 400 to such a history): while the
    /// oldest row left would be a tool result, the boundary moves to just before the
    /// assistant row that made the calls. Those rows stay in the history (an observation may
    /// then cover rows still sent; nothing is lost). None: nothing can be archived.
    async fn unsplit_boundary(
        &self,
        tx: &mut WriteTx<'_>,
        session_id: i64,
        mut boundary: i64,
    ) -> StoreResult<Option<i64>> {
        loop {
            let first_left: Option<super::messages::MessageRow> =
                sqlx::query_as(sqlx::AssertSqlSafe(format!(
                    "SELECT {} FROM messages WHERE session_id = ? AND seq > ? AND kind = 'message'
                     ORDER BY seq LIMIT 1",
                    super::messages::MESSAGE_COLUMNS
                )))
                .bind(session_id)
                .bind(boundary)
                .fetch_optional(&mut **tx)
                .await
                .map_err(|e| self.err(e))?;
            let Some(first_left) = first_left else {
                return Ok(Some(boundary));
            };
            if !first_left.into_message(false)?.is_tool_result() {
                return Ok(Some(boundary));
            }
            let caller: Option<i64> = sqlx::query_scalar(
                "SELECT seq FROM messages WHERE session_id = ? AND seq <= ?
                   AND role IN ('assistant', 'model') AND tool_calls LIKE '%\"input\"%' ESCAPE '\\'
                 ORDER BY seq DESC LIMIT 1",
            )
            .bind(session_id)
            .bind(boundary)
            .fetch_optional(&mut **tx)
            .await
            .map_err(|e| self.err(e))?;
            match caller {
                Some(seq) => {
                    tracing::debug!(
                        boundary,
                        moved_to = seq - 1,
                        "compaction would leave a tool result without its call; archiving less"
                    );
                    boundary = seq - 1;
                }
                // No call to keep it with (a legacy history): archiving the result with the
                // rest is the lesser harm than leaving it alone at the head.
                None => return Ok(Some(boundary)),
            }
        }
    }

    /// Archived rows of a session in `seq` range `start..=end`, oldest first ("show source
    /// messages" of an observation whose rows were compacted).
    pub async fn archived_messages(
        &self,
        key: &str,
        start: i64,
        end: i64,
    ) -> StoreResult<Vec<StoredMessage>> {
        let session_id = self.session_id(self.reader(), key).await?;
        let rows: Vec<super::messages::MessageRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT {} FROM archived_messages WHERE session_id = ? AND seq BETWEEN ? AND ? ORDER BY seq",
            super::messages::MESSAGE_COLUMNS
        )))
        .bind(session_id)
        .bind(start)
        .bind(end)
        .fetch_all(self.reader())
        .await
        .map_err(|e| self.err(e))?;
        rows.into_iter().map(|r| r.into_message(true)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both reads by summary must look the summary up in `archived_by_summary` instead of
    /// walking the session's archive, which grows with the conversation (after 2,000 turns
    /// the link took 6× as long as in the first turns, inside the write sends wait for).
    #[tokio::test]
    async fn reading_a_summarys_archived_rows_never_walks_the_sessions_archive() {
        let (_dir, store) = Store::open_temporary().await;
        for statement in [LINK_TO_SUMMARY, SUMMARY_ROWS] {
            let archive: Vec<String> = store
                .query_plan(statement)
                .await
                .into_iter()
                .filter(|step| step.contains("archived_messages") || step.contains(" a "))
                .collect();
            assert_eq!(archive.len(), 1, "{statement}: {archive:?}");
            assert!(
                archive[0].starts_with("SEARCH")
                    && archive[0].contains("archived_by_summary (summary_id=? AND session_id=?"),
                "by summary, not by session: {archive:?}"
            );
        }
        store.close().await;
    }
}
