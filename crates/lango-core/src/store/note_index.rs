//! The memory notes' search rows in the form the messages' are indexed in
//! (`store::index_form`: Chinese or Thai spaced, marks inside words kept). Triggers index
//! an observation or reflection as written (migration 0002); SQL cannot form it, so each
//! write of a note that needs it sets its row's text here, in the same transaction.

use std::borrow::Cow;

use sqlx::sqlite::SqliteConnection;

use super::index_form::index_form;

/// Which notes' table, and its index's statement.
#[derive(Debug, Clone, Copy)]
pub(super) enum NoteTable {
    Observations,
    Reflections,
}

impl NoteTable {
    /// Sets the search row of the note with id `?2` to `?1`.
    fn respace(self) -> &'static str {
        match self {
            Self::Observations => {
                "UPDATE observation_fts SET text = ?1
                  WHERE rowid = (SELECT rowid FROM observations WHERE id = ?2)"
            }
            Self::Reflections => {
                "UPDATE reflection_fts SET text = ?1
                  WHERE rowid = (SELECT rowid FROM reflections WHERE id = ?2)"
            }
        }
    }

    /// Sets the search row of the note with rowid `?2` to `?1` (the upgrade's walk).
    pub(super) fn respace_rowid(self) -> &'static str {
        match self {
            Self::Observations => "UPDATE observation_fts SET text = ?1 WHERE rowid = ?2",
            Self::Reflections => "UPDATE reflection_fts SET text = ?1 WHERE rowid = ?2",
        }
    }
}

/// After note `id` of `table` was written with `content`: its search row spaced, when it
/// needs that form (else the trigger's row is already what the index needs).
pub(super) async fn index_note(
    conn: &mut SqliteConnection,
    table: NoteTable,
    id: &str,
    content: &str,
) -> sqlx::Result<()> {
    // Borrowed when the trigger's row already holds the text as the index needs it.
    let Cow::Owned(formed) = index_form(content) else {
        return Ok(());
    };
    sqlx::query(table.respace())
        .bind(formed)
        .bind(id)
        .execute(conn)
        .await?;
    Ok(())
}
