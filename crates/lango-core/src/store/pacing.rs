//! Sizing work that holds the writer: the next batch or span is sized from the last one's
//! pace so it takes about a target time, at most doubling, so one fast step never makes the
//! next one huge (the search indexing's batches, the upgrade's re-indexing walk).

use std::time::Duration;

/// The next size after one of `size` took `took`: about `target` at that pace, at most twice
/// `size`, within `min..=max`.
pub(super) fn next_size(size: i64, took: Duration, target: Duration, min: i64, max: i64) -> i64 {
    let took = took.as_secs_f64().max(1e-4);
    let scaled = size as f64 * target.as_secs_f64() / took;
    (scaled as i64).clamp(min, (size * 2).min(max))
}
