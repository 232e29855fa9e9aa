//! Times the user's global search (the sidebar's and `lango sessions search`'s query, first
//! page of 50) for `make bench-scale` (`scripts/bench-scale.sh`), on the 1M-message and the
//! 1-conversation folders seeded by `seed_scale`.
//!
//! ```text
//! cargo run --release -p lango-core --example bench_search -- <small-dir> <big-dir> <query-set> <runs>
//! cargo run --release -p lango-core --example bench_search -- <data-dir> <query-set> <runs>
//! ```
//!
//! With two folders both are open at once and every query runs on one, then the other
//! (which goes first alternates), so the two sides share the machine's moment: the queries
//! take well under a millisecond, and on this machine the same query's p95 moved ~2× between
//! runs minutes apart. With one folder it times that folder alone (the script uses it to
//! read each database's peak memory).
//!
//! Query sets: `needle` (`axolotl`, in 5 messages of either database), `rare` (`quetzal`,
//! 20 hits at 1M, 1 in a conversation), `common` (`project`, in half of the messages),
//! `typing` (`p`, `pr`, … `project`, a query per keystroke), `three` (`borrow checker
//! lifetimes`). Prints one JSON line: per folder, p50 and p95 in milliseconds and the hits
//! and total of the last query.

use std::time::{Duration, Instant};

use lango_core::paths::AppPaths;
use lango_core::store::{SearchResults, Store};

const USAGE: &str =
    "usage: bench_search [<small-dir>] <data-dir> <needle|rare|common|typing|three> <runs>";

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)].as_secs_f64() * 1000.0
}

fn queries(set: &str) -> Option<Vec<&'static str>> {
    Some(match set {
        "needle" => vec!["axolotl"],
        "rare" => vec!["quetzal"],
        "common" => vec!["project"],
        "typing" => vec!["p", "pr", "pro", "proj", "proje", "projec", "project"],
        "three" => vec!["borrow checker lifetimes"],
        _ => return None,
    })
}

/// One folder's samples and its last answer.
struct Side {
    store: Store,
    samples: Vec<Duration>,
    last: Option<SearchResults>,
}

impl Side {
    async fn open(dir: &str) -> Result<Self, Box<dyn std::error::Error>> {
        let store = Store::open_app(&AppPaths::under(std::path::Path::new(dir))).await?;
        Ok(Self {
            store,
            samples: Vec::new(),
            last: None,
        })
    }

    async fn time(&mut self, query: &str) -> Result<(), Box<dyn std::error::Error>> {
        let started = Instant::now();
        let results = self.store.search_page(query, None, 50, 0).await?;
        self.samples.push(started.elapsed());
        self.last = Some(results);
        Ok(())
    }

    async fn report(mut self) -> Result<String, Box<dyn std::error::Error>> {
        self.store.close().await;
        self.samples.sort();
        let last = self.last.ok_or("no runs")?;
        Ok(format!(
            "{{\"p50_ms\":{:.3},\"p95_ms\":{:.3},\"hits\":{},\"total\":{},\"lower_bound\":{}}}",
            percentile(&self.samples, 0.5),
            percentile(&self.samples, 0.95),
            last.hits.len(),
            last.total,
            last.total_is_lower_bound
        ))
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (dirs, set, runs) = match args.as_slice() {
        [small, big, set, runs] => (vec![small.as_str(), big.as_str()], set, runs),
        [dir, set, runs] => (vec![dir.as_str()], set, runs),
        _ => return Err(USAGE.into()),
    };
    let runs: usize = runs.parse()?;
    let queries = queries(set).ok_or(USAGE)?;
    let mut sides = Vec::new();
    for dir in &dirs {
        sides.push(Side::open(dir).await?);
    }
    // Warm the page cache and the connections as a running app has them.
    for side in &mut sides {
        for q in &queries {
            side.time(q).await?;
        }
        side.samples.clear();
    }
    let count = sides.len();
    for run in 0..runs {
        for q in &queries {
            for i in 0..count {
                // Which folder goes first alternates between rounds.
                let i = if run % 2 == 1 { count - 1 - i } else { i };
                sides[i].time(q).await?;
            }
        }
    }
    let mut reports = Vec::new();
    for side in sides {
        reports.push(side.report().await?);
    }
    match reports.as_slice() {
        [one] => println!("{{\"set\":\"{set}\",\"one\":{one}}}"),
        [small, big] => println!("{{\"set\":\"{set}\",\"small\":{small},\"big\":{big}}}"),
        _ => return Err(USAGE.into()),
    }
    Ok(())
}
