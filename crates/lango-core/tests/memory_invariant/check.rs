//! The coverage invariant itself (the formulation is in `main.rs`), read from the database
//! alone, and SQLite's own integrity check after a kill; with a test that the check catches
//! what it must.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use lango_core::store::MessageKind;
use lango_core::store::Store;

use crate::harness::{append_exchange, build_cycle, open_store, FakeLlm, KEY};
use crate::raw_db::{integrity_check, raw_pool};

/// The coverage invariant (see the module doc). Returns (max generation, #observations +
/// #reflections, max seq).
pub async fn check_invariant(store: &Store, compact: bool) -> Result<(i64, usize, i64), String> {
    let e = |e: lango_core::store::StoreError| e.to_string();
    let live = store.list_messages(KEY).await.map_err(e)?;
    let archived = store
        .archived_messages(KEY, i64::MIN, i64::MAX)
        .await
        .map_err(e)?;
    let cursor = store.observed_through_seq(KEY).await.map_err(e)?;
    let observations = store.list_observations(KEY).await.map_err(e)?;
    let reflections = store.list_reflections(KEY).await.map_err(e)?;

    // seq → (in history, in archive)
    let mut places: BTreeMap<i64, (usize, usize)> = BTreeMap::new();
    for m in live.iter().filter(|m| m.kind == MessageKind::Message) {
        places.entry(m.seq).or_default().0 += 1;
    }
    for m in archived.iter().filter(|m| m.kind == MessageKind::Message) {
        places.entry(m.seq).or_default().1 += 1;
    }
    for (seq, (l, a)) in &places {
        if l + a != 1 {
            return Err(format!(
                "seq {seq}: {l} history row(s) and {a} archived row(s), expected exactly one"
            ));
        }
    }
    let max_seq = places.keys().next_back().copied().unwrap_or(0);
    if cursor < 0 || cursor > max_seq {
        return Err(format!(
            "cursor {cursor} points past the history (max seq {max_seq})"
        ));
    }
    if compact {
        let summaries = live
            .iter()
            .filter(|m| m.kind == MessageKind::Summary)
            .count();
        if summaries > 1 {
            return Err(format!("{summaries} summary rows in the history"));
        }
    }

    let ranges: Vec<(String, i64, i64)> = observations
        .iter()
        .map(|o| (format!("observation {}", o.id), o.seq_start, o.seq_end))
        .chain(reflections.iter().map(|r| {
            (
                format!("reflection {} (gen {})", r.id, r.generation),
                r.seq_start,
                r.seq_end,
            )
        }))
        .collect();
    for (name, start, end) in &ranges {
        if start > end {
            return Err(format!("{name}: empty range {start}..={end}"));
        }
        if *end > cursor {
            return Err(format!(
                "{name}: range {start}..={end} ends after the cursor {cursor}"
            ));
        }
        if places.range(*start..=*end).next().is_none() {
            return Err(format!("{name}: range {start}..={end} covers no message"));
        }
    }
    let mut sorted: Vec<&(String, i64, i64)> = ranges.iter().collect();
    sorted.sort_by_key(|r| r.1);
    for pair in sorted.windows(2) {
        if pair[1].1 <= pair[0].2 {
            return Err(format!(
                "{} ({}..={}) overlaps {} ({}..={})",
                pair[0].0, pair[0].1, pair[0].2, pair[1].0, pair[1].1, pair[1].2
            ));
        }
    }

    for (&seq, &(in_history, in_archive)) in &places {
        let covering: Vec<&str> = ranges
            .iter()
            .filter(|(_, s, e)| *s <= seq && seq <= *e)
            .map(|(n, _, _)| n.as_str())
            .collect();
        if seq <= cursor {
            if covering.len() != 1 {
                return Err(format!(
                    "seq {seq} ≤ cursor {cursor} is covered by {covering:?}, expected exactly one \
                     observation or reflection"
                ));
            }
            if compact && in_archive != 1 {
                return Err(format!(
                    "seq {seq} ≤ cursor {cursor} is still in the history with the compactor on"
                ));
            }
            if !compact && in_history != 1 {
                return Err(format!("seq {seq} was archived with the compactor off"));
            }
        } else {
            if !covering.is_empty() {
                return Err(format!(
                    "seq {seq} > cursor {cursor} is covered by {covering:?}"
                ));
            }
            if in_history != 1 {
                return Err(format!(
                    "seq {seq} > cursor {cursor} is not in the history (archived: {in_archive})"
                ));
            }
        }
    }
    let max_generation = reflections.iter().map(|r| r.generation).max().unwrap_or(0);
    Ok((max_generation, ranges.len(), max_seq))
}

pub async fn integrity_ok(path: &Path) -> Result<(), String> {
    let pool = raw_pool(path).await;
    let integrity = integrity_check(&pool).await.map_err(|e| e.to_string())?;
    pool.close().await;
    if integrity == "ok" {
        Ok(())
    } else {
        Err(format!("integrity_check: {integrity}"))
    }
}

/// The check itself catches a duplicate range and a cursor past the history (guards against
/// an invariant that silently passes everything).
#[tokio::test]
async fn invariant_check_detects_violations() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lango.db");
    let store = open_store(&path).await;
    store.create_session(KEY, "broken").await.unwrap();
    let llm = Arc::new(FakeLlm::default());
    let cycle = build_cycle(&store, &llm, true);
    for n in 0..3 {
        append_exchange(&store, n, 1, 1).await;
    }
    let o = cycle.run(KEY).await.observation.expect("observed");
    check_invariant(&store, true).await.unwrap();

    // The same range twice: a duplicate.
    let mut dup = o.clone();
    dup.id = String::new();
    store.save_observation(dup).await.unwrap();
    let err = check_invariant(&store, true).await.unwrap_err();
    assert!(err.contains("overlaps"), "{err}");
    store.close().await;

    // A cursor past the history.
    let pool = raw_pool(&path).await;
    sqlx::query("DELETE FROM observations WHERE id <> ?")
        .bind(&o.id)
        .execute(&pool)
        .await
        .unwrap();
    sqlx::query("UPDATE sessions SET observed_through_seq = 999")
        .execute(&pool)
        .await
        .unwrap();
    pool.close().await;
    let store = open_store(&path).await;
    let err = check_invariant(&store, true).await.unwrap_err();
    assert!(err.contains("past the history"), "{err}");
    store.close().await;
}
