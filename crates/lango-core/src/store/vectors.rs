//! Embedding vectors and knowledge-graph triples of observational memory (REFERENCE §3.9).
//!
//! Plain persistence for the embedding and graph buffers (`memory::embedding`,
//! `memory::graph`). Both tables belong to a session and go with it (foreign keys cascade);
//! deleting an observation or reflection deletes its vector (triggers in migration 0003), and
//! so does editing its text (migration 0004: the memory cycle embeds the new text).

use sqlx::FromRow;

use super::error::StoreResult;
use super::{now_ms, Store};

/// One embedding to save: the vector of `item_id` in `collection`
/// (`message`, `observation` or `reflection`), computed by `model`.
#[derive(Debug, Clone, PartialEq)]
pub struct VectorRow {
    pub session_key: String,
    pub collection: String,
    pub item_id: String,
    pub model: String,
    pub vector: Vec<f32>,
}

/// A knowledge-graph edge: `subject --predicate--> object`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, FromRow)]
pub struct Triple {
    pub subject: String,
    pub predicate: String,
    pub object: String,
}

impl Triple {
    pub fn new(
        subject: impl Into<String>,
        predicate: impl Into<String>,
        object: impl Into<String>,
    ) -> Self {
        Triple {
            subject: subject.into(),
            predicate: predicate.into(),
            object: object.into(),
        }
    }
}

/// Little-endian f32 bytes.
fn encode(vector: &[f32]) -> Vec<u8> {
    vector.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn decode(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

#[derive(FromRow)]
struct StoredVector {
    collection: String,
    item_id: String,
    vector: Vec<u8>,
}

impl Store {
    /// Saves vectors in one transaction, replacing an item's previous vector. Rows whose
    /// session no longer exists, or whose observation/reflection was deleted meanwhile, are
    /// skipped (a queued embedding must not resurrect deleted data). Returns how many were
    /// saved.
    pub async fn save_vectors(&self, rows: &[VectorRow]) -> StoreResult<u64> {
        if rows.is_empty() {
            return Ok(0);
        }
        let now = now_ms();
        let mut tx = self.begin_write().await?;
        let mut saved = 0;
        for row in rows {
            let dims = i64::try_from(row.vector.len()).unwrap_or(i64::MAX);
            let done = sqlx::query(
                "INSERT INTO memory_vectors (session_id, collection, item_id, model, dims, vector, created_at)
                 SELECT s.id, ?1, ?2, ?3, ?4, ?5, ?6 FROM sessions s
                  WHERE s.key = ?7
                    AND CASE ?1
                        WHEN 'observation' THEN EXISTS (SELECT 1 FROM observations o WHERE o.id = ?2)
                        WHEN 'reflection'  THEN EXISTS (SELECT 1 FROM reflections r WHERE r.id = ?2)
                        ELSE 1 END
                 ON CONFLICT (collection, item_id) DO UPDATE SET
                    session_id = excluded.session_id, model = excluded.model, dims = excluded.dims,
                    vector = excluded.vector, created_at = excluded.created_at",
            )
            .bind(&row.collection)
            .bind(&row.item_id)
            .bind(&row.model)
            .bind(dims)
            .bind(encode(&row.vector))
            .bind(now)
            .bind(&row.session_key)
            .execute(&mut *tx)
            .await
            .map_err(|e| self.err(e))?;
            saved += done.rows_affected();
        }
        tx.commit().await.map_err(|e| self.err(e))?;
        Ok(saved)
    }

    /// A session's vectors as `(collection, item_id, vector)`, optionally of one collection,
    /// ordered by collection then item id. An unknown key → empty.
    pub async fn session_vectors(
        &self,
        key: &str,
        collection: Option<&str>,
    ) -> StoreResult<Vec<(String, String, Vec<f32>)>> {
        let rows: Vec<StoredVector> = sqlx::query_as(
            "SELECT v.collection, v.item_id, v.vector
               FROM memory_vectors v JOIN sessions s ON s.id = v.session_id
              WHERE s.key = ?1 AND (?2 IS NULL OR v.collection = ?2)
              ORDER BY v.collection, v.item_id",
        )
        .bind(key)
        .bind(collection)
        .fetch_all(self.reader())
        .await
        .map_err(|e| self.err(e))?;
        Ok(rows
            .into_iter()
            .map(|r| (r.collection, r.item_id, decode(&r.vector)))
            .collect())
    }

    /// Adds triples to a session's graph in one transaction; an existing triple is left as it
    /// is. An unknown (e.g. just deleted) session adds nothing. Returns how many were added.
    pub async fn add_triples(&self, key: &str, triples: &[Triple]) -> StoreResult<u64> {
        if triples.is_empty() {
            return Ok(0);
        }
        let now = now_ms();
        let mut tx = self.begin_write().await?;
        let mut added = 0;
        for t in triples {
            let done = sqlx::query(
                "INSERT INTO memory_triples (session_id, subject, predicate, object, created_at)
                 SELECT id, ?, ?, ?, ? FROM sessions WHERE key = ?
                 ON CONFLICT (subject, predicate, object) DO NOTHING",
            )
            .bind(&t.subject)
            .bind(&t.predicate)
            .bind(&t.object)
            .bind(now)
            .bind(key)
            .execute(&mut *tx)
            .await
            .map_err(|e| self.err(e))?;
            added += done.rows_affected();
        }
        tx.commit().await.map_err(|e| self.err(e))?;
        Ok(added)
    }

    /// A session's triples in insertion order. An unknown key → empty.
    pub async fn list_triples(&self, key: &str) -> StoreResult<Vec<Triple>> {
        sqlx::query_as(
            "SELECT t.subject, t.predicate, t.object
               FROM memory_triples t JOIN sessions s ON s.id = t.session_id
              WHERE s.key = ? ORDER BY t.id",
        )
        .bind(key)
        .fetch_all(self.reader())
        .await
        .map_err(|e| self.err(e))
    }
}
