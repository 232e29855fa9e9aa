//! Attachments (migration 0012): each file stored once under the SHA-256 of its bytes, with
//! what the models are sent — a prepared image or the extracted text — and its cost.

use sqlx::FromRow;

use super::error::{StoreError, StoreResult};
use super::{now_ms, Store};
use crate::attachments::{AttachmentKind, ImageFormat, PreparedAttachment, PreparedImage};

/// What a message will keep of an attachment: enough to list it and count it without
/// loading its bytes.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AttachmentRef {
    pub hash: String,
    /// The name it was attached under this time (the stored row keeps the first one).
    pub name: String,
    /// `image`, `pdf` or `text`.
    pub kind: String,
    pub mime: String,
    pub size: u64,
    pub token_count: u64,
    /// One line saying what it is — name, type, size, a gist of its text — never its bytes
    /// (`attachments::describe`): what the memory and exports show of it.
    #[serde(default)]
    pub description: String,
    /// False when the same bytes were already stored (nothing was written). Not kept with
    /// a message.
    #[serde(default, skip_serializing)]
    pub newly_stored: bool,
}

impl AttachmentRef {
    /// The reference a message keeps of `a`.
    pub fn of(a: &PreparedAttachment) -> Self {
        Self {
            hash: a.hash.clone(),
            name: a.name.clone(),
            kind: a.kind.as_str().into(),
            mime: a.mime.clone(),
            size: a.size,
            token_count: a.token_count as u64,
            description: crate::attachments::describe(a),
            newly_stored: false,
        }
    }
}

/// An attachment as read back, with when it was first stored (ms since the epoch).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredAttachment {
    pub attachment: PreparedAttachment,
    pub created_at: i64,
}

#[derive(FromRow)]
struct Row {
    hash: String,
    kind: String,
    mime: String,
    name: String,
    size: i64,
    width: Option<i64>,
    height: Option<i64>,
    original_width: Option<i64>,
    original_height: Option<i64>,
    data_mime: Option<String>,
    data: Option<Vec<u8>>,
    text: Option<String>,
    text_truncated: bool,
    pages: Option<i64>,
    token_count: i64,
    created_at: i64,
}

/// The columns of [`Row`], as a literal (sqlx takes only `&'static str` SQL).
macro_rules! columns {
    () => {
        "hash, kind, mime, name, size, width, height, original_width, original_height, \
         data_mime, data, text, text_truncated, pages, token_count, created_at"
    };
}

/// A size stored as INTEGER read back (the CHECKs keep them positive).
fn dim(v: Option<i64>) -> u32 {
    v.and_then(|v| u32::try_from(v).ok()).unwrap_or(0)
}

impl Row {
    fn into_stored(self) -> StoreResult<StoredAttachment> {
        let unreadable = |why: &str| {
            StoreError::Database(format!("attachment {} is unreadable: {why}", self.hash))
        };
        let kind = match self.kind.as_str() {
            "image" => AttachmentKind::Image(
                ImageFormat::from_mime(&self.mime)
                    .ok_or_else(|| unreadable("unknown image type"))?,
            ),
            "pdf" => AttachmentKind::Pdf,
            "text" => AttachmentKind::Text,
            _ => return Err(unreadable("unknown kind")),
        };
        let image = match (self.data, self.data_mime) {
            (Some(data), Some(mime)) => Some(PreparedImage {
                mime,
                data,
                original_width: dim(self.original_width),
                original_height: dim(self.original_height),
                width: dim(self.width),
                height: dim(self.height),
            }),
            _ => None,
        };
        Ok(StoredAttachment {
            attachment: PreparedAttachment {
                hash: self.hash,
                name: self.name,
                kind,
                mime: self.mime,
                size: u64::try_from(self.size).unwrap_or(0),
                text: self.text,
                text_truncated: self.text_truncated,
                pages: self.pages.and_then(|p| usize::try_from(p).ok()),
                image,
                token_count: usize::try_from(self.token_count).unwrap_or(0),
            },
            created_at: self.created_at,
        })
    }
}

impl Store {
    /// Stores a prepared attachment unless the same bytes (its hash) are stored already, in
    /// which case nothing is written. One statement, under the write gate.
    pub async fn put_attachment(&self, a: &PreparedAttachment) -> StoreResult<AttachmentRef> {
        let image = a.image.as_ref();
        let sql = concat!(
            "INSERT INTO attachments (",
            columns!(),
            ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (hash) DO NOTHING"
        );
        let done = sqlx::query(sql)
            .bind(&a.hash)
            .bind(a.kind.as_str())
            .bind(&a.mime)
            .bind(&a.name)
            .bind(i64::try_from(a.size).unwrap_or(i64::MAX))
            .bind(image.map(|i| i64::from(i.width)))
            .bind(image.map(|i| i64::from(i.height)))
            .bind(image.map(|i| i64::from(i.original_width)))
            .bind(image.map(|i| i64::from(i.original_height)))
            .bind(image.map(|i| i.mime.as_str()))
            .bind(image.map(|i| i.data.as_slice()))
            .bind(a.text.as_deref())
            .bind(a.text_truncated)
            .bind(a.pages.map(|p| i64::try_from(p).unwrap_or(i64::MAX)))
            .bind(i64::try_from(a.token_count).unwrap_or(i64::MAX))
            .bind(now_ms())
            .execute(&*self.writer().await)
            .await
            .map_err(|e| self.err(e))?;
        Ok(AttachmentRef {
            newly_stored: done.rows_affected() == 1,
            ..AttachmentRef::of(a)
        })
    }

    /// The attachment stored under `hash`, if any.
    pub async fn attachment(&self, hash: &str) -> StoreResult<Option<StoredAttachment>> {
        let row: Option<Row> = sqlx::query_as(concat!(
            "SELECT ",
            columns!(),
            " FROM attachments WHERE hash = ?"
        ))
        .bind(hash)
        .fetch_optional(self.reader())
        .await
        .map_err(|e| self.err(e))?;
        row.map(Row::into_stored).transpose()
    }

    /// The attachments stored under `hashes`, in one query, in the order asked (a hash asked
    /// twice comes back twice; one not stored is left out).
    pub async fn attachments(&self, hashes: &[String]) -> StoreResult<Vec<StoredAttachment>> {
        if hashes.is_empty() {
            return Ok(Vec::new());
        }
        // One JSON array parameter, whatever the count: no bound-parameter limit to meet.
        let rows: Vec<Row> = sqlx::query_as(concat!(
            "SELECT ",
            columns!(),
            " FROM attachments WHERE hash IN (SELECT value FROM json_each(?))"
        ))
        .bind(serde_json::to_string(hashes)?)
        .fetch_all(self.reader())
        .await
        .map_err(|e| self.err(e))?;
        let mut found = std::collections::HashMap::with_capacity(rows.len());
        for row in rows {
            let stored = row.into_stored()?;
            found.insert(stored.attachment.hash.clone(), stored);
        }
        let mut out = Vec::with_capacity(hashes.len());
        for (i, hash) in hashes.iter().enumerate() {
            // Moved out unless asked for again: an image's bytes are copied only for repeats.
            let again = hashes[i + 1..].contains(hash);
            let item = if again {
                found.get(hash).cloned()
            } else {
                found.remove(hash)
            };
            out.extend(item);
        }
        Ok(out)
    }
}
