//! Times the user's global search (the sidebar's and `lango sessions search`'s query, first
//! page of 50) on a data folder, for `make bench-scale` (`scripts/bench-scale.sh`), which
//! runs it on a 1M-message and a 1-conversation folder seeded by `seed_scale` and prints
//! the ratios.
//!
//! ```text
//! cargo run --release -p lango-core --example bench_search -- <data-dir> <query-set> <runs>
//! ```
//!
//! Query sets: `rare` (`quetzal`), `common` (`project`, in half of the messages), `typing`
//! (`p`, `pr`, … `project`, a query per keystroke), `three` (`borrow checker lifetimes`).
//! Prints one JSON line: the set, p50 and p95 in milliseconds, and the hits and total of the
//! last query.

use std::time::{Duration, Instant};

use lango_core::paths::AppPaths;
use lango_core::store::Store;

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)].as_secs_f64() * 1000.0
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let usage = "usage: bench_search <data-dir> <rare|common|typing|three> <runs>";
    let dir = args.next().ok_or(usage)?;
    let set = args.next().ok_or(usage)?;
    let runs: usize = args.next().ok_or(usage)?.parse()?;
    let queries: Vec<&str> = match set.as_str() {
        "rare" => vec!["quetzal"],
        "common" => vec!["project"],
        "typing" => vec!["p", "pr", "pro", "proj", "proje", "projec", "project"],
        "three" => vec!["borrow checker lifetimes"],
        _ => return Err(usage.into()),
    };
    let store = Store::open_app(&AppPaths::under(std::path::Path::new(&dir))).await?;
    // Warm the page cache and the connections as a running app has them.
    for q in &queries {
        store.search_page(q, None, 50, 0).await?;
    }
    let mut samples = Vec::with_capacity(runs * queries.len());
    let mut last = None;
    for _ in 0..runs {
        for q in &queries {
            let started = Instant::now();
            let results = store.search_page(q, None, 50, 0).await?;
            samples.push(started.elapsed());
            last = Some(results);
        }
    }
    store.close().await;
    samples.sort();
    let last = last.ok_or("no runs")?;
    println!(
        "{{\"set\":\"{set}\",\"p50_ms\":{:.3},\"p95_ms\":{:.3},\"hits\":{},\"total\":{},\"lower_bound\":{}}}",
        percentile(&samples, 0.5),
        percentile(&samples, 0.95),
        last.hits.len(),
        last.total,
        last.total_is_lower_bound
    );
    Ok(())
}
