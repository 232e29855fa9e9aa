//! Store benchmarks (run: `make bench`, i.e. `cargo bench -p lango-core --bench store`).
//!
//! Prints:
//! - durable append throughput: one transaction per message, as a chat appends them
//!   (goal ≥ 5,000 messages/s), and what the search indexing deferred by appends costs
//!   when the next search pays it (migration 0005);
//! - history-tail load time for a 100k-message session divided by that for a 1k-message
//!   session, same budget (goal ≤ 1.5: loading reads only the tail);
//! - knowledge retrieval's search (run before every model call with memory on) in a
//!   500-message session, alone in its database and among 100 such sessions: the match is
//!   scoped to the session inside FTS5, so other sessions should cost little; and a Chinese
//!   question in a Chinese session (each pair of its characters a keyword) against the
//!   English one;
//! - a message sent while a 20,000-message conversation is imported (a long ChatGPT thread):
//!   how long each send waits, against a send with nothing else writing — the import goes
//!   a chunk per transaction, so a send waits for one chunk, not the whole thread.
//!
//! A plain binary (no criterion) so it builds fast and prints ratios, not just timings.

use std::str::FromStr;
use std::time::{Duration, Instant};

use lango_core::store::{NewMessage, Store};
use sqlx::sqlite::{SqliteConnectOptions, SqlitePoolOptions};

#[path = "../tests/common/long_thread.rs"]
mod long_thread;
use long_thread::long_thread;

const APPENDS: usize = 20_000;
const TAIL_BUDGET: usize = 8_000;
const LOADS: usize = 200;

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

/// Fills a session with `rows` messages of ~30 tokens directly in SQL (seeding 100k rows
/// through the API would measure appends again, not loads).
async fn seed(path: &std::path::Path, key: &str, rows: i64) {
    let opts = SqliteConnectOptions::from_str("sqlite:")
        .expect("options")
        .filename(path);
    let pool = SqlitePoolOptions::new()
        .max_connections(1)
        .connect_with(opts)
        .await
        .expect("pool");
    let id: i64 = sqlx::query_scalar("SELECT id FROM sessions WHERE key = ?")
        .bind(key)
        .fetch_one(&pool)
        .await
        .expect("session");
    sqlx::query(
        "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < ?2)
         INSERT INTO messages (session_id, seq, role, content, token_count, created_at)
         SELECT ?1, x, CASE x % 2 WHEN 1 THEN 'user' ELSE 'assistant' END,
                'message ' || x || ' about the project plan and what to do next', 30, x FROM n",
    )
    .bind(id)
    .bind(rows)
    .execute(&pool)
    .await
    .expect("seed");
    sqlx::query("UPDATE sessions SET next_seq = ?1 + 1 WHERE id = ?2")
        .bind(rows)
        .bind(id)
        .execute(&pool)
        .await
        .expect("next_seq");
    pool.close().await;
}

async fn time_tail_loads(store: &Store, key: &str) -> Duration {
    let mut samples = Vec::with_capacity(LOADS);
    for _ in 0..LOADS {
        let start = Instant::now();
        let tail = store
            .load_history_tail(key, TAIL_BUDGET)
            .await
            .expect("tail");
        samples.push(start.elapsed());
        assert!(tail.truncated || tail.messages.len() < 300);
    }
    median(samples)
}

#[tokio::main]
async fn main() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("bench.db");
    let store = Store::open(&path).await.expect("open");

    // 1. Durable appends.
    store.create_session("append", "").await.expect("session");
    let text = "A typical chat message of a sentence or two, long enough to be realistic.";
    let start = Instant::now();
    for _ in 0..APPENDS {
        store
            .append_message("append", NewMessage::new("user", text))
            .await
            .expect("append");
    }
    let elapsed = start.elapsed();
    let rate = APPENDS as f64 / elapsed.as_secs_f64();
    println!(
        "append throughput: {rate:.0} messages/s ({APPENDS} appends in {:.2} s, one transaction each; goal >= 5000) {}",
        elapsed.as_secs_f64(),
        if rate >= 5000.0 { "OK" } else { "BELOW GOAL" }
    );
    let start = Instant::now();
    let indexed = store.index_pending_messages().await.expect("index");
    let english = start.elapsed();
    println!(
        "deferred search indexing: {indexed} messages in {:.0} ms, paid once by the next search",
        english.as_secs_f64() * 1e3
    );
    // Chinese is indexed with its characters apart (store::unspaced): read into Rust, spaced,
    // inserted as JSON, where English goes through SQL alone.
    store.create_session("chinese", "").await.expect("session");
    let chinese = "一条典型的聊天消息，一两句话，长度足以显得真实，也谈到编程和学习。";
    for _ in 0..APPENDS {
        store
            .append_message("chinese", NewMessage::new("user", chinese))
            .await
            .expect("append");
    }
    let start = Instant::now();
    let indexed = store.index_pending_messages().await.expect("index");
    let spaced = start.elapsed();
    println!(
        "deferred search indexing, Chinese: {indexed} messages in {:.0} ms ({:.1}x the English ones)",
        spaced.as_secs_f64() * 1e3,
        spaced.as_secs_f64() / english.as_secs_f64()
    );

    // 2. History tail: 100k vs 1k messages.
    store.create_session("small", "").await.expect("session");
    store.create_session("large", "").await.expect("session");
    seed(&path, "small", 1_000).await;
    seed(&path, "large", 100_000).await;
    let _warm = time_tail_loads(&store, "small").await;
    let small = time_tail_loads(&store, "small").await;
    let large = time_tail_loads(&store, "large").await;
    let ratio = large.as_secs_f64() / small.as_secs_f64();
    println!(
        "history tail load (budget {TAIL_BUDGET}): 1k session {:.3} ms, 100k session {:.3} ms, ratio {ratio:.2} (goal <= 1.5) {}",
        small.as_secs_f64() * 1e3,
        large.as_secs_f64() * 1e3,
        if ratio <= 1.5 { "OK" } else { "ABOVE GOAL" }
    );
    store.close().await;

    // 3. Knowledge retrieval: one session alone vs among 100.
    let alone = time_knowledge_search(dir.path(), "alone", 1).await;
    let among = time_knowledge_search(dir.path(), "among", 100).await;
    let chinese = time_chinese_knowledge_search(dir.path()).await;
    println!(
        "knowledge retrieval, a Chinese question (its pairs of characters as keywords) in a 500-message Chinese session: {:.2} ms ({:.1}x the English question alone)",
        chinese.as_secs_f64() * 1e3,
        chinese.as_secs_f64() / alone.as_secs_f64()
    );
    println!(
        "knowledge retrieval (match + rank, nothing cached) in a 500-message session: alone {:.2} ms, among 100 sessions {:.2} ms (ratio {:.1})",
        alone.as_secs_f64() * 1e3,
        among.as_secs_f64() * 1e3,
        among.as_secs_f64() / alone.as_secs_f64()
    );

    // 4. Sends during a long import.
    let (quiet, during, import) = time_sends_during_import(dir.path()).await;
    let stat = |s: &[Duration], q: f64| s[((s.len() - 1) as f64 * q) as usize].as_secs_f64() * 1e3;
    println!(
        "a send while a {IMPORTED}-message conversation is imported ({:.1} s): p95 {:.1} ms, slowest {:.1} ms; with nothing else writing p95 {:.2} ms, slowest {:.2} ms (goal: slowest <= 100 ms) {}",
        import.as_secs_f64(),
        stat(&during, 0.95),
        stat(&during, 1.0),
        stat(&quiet, 0.95),
        stat(&quiet, 1.0),
        if stat(&during, 1.0) <= 100.0 { "OK" } else { "ABOVE GOAL" }
    );
}

/// Messages in the imported conversation of [`time_sends_during_import`].
const IMPORTED: usize = 20_000;

/// Each send's time (sorted) with nothing else writing, then while a conversation of
/// [`IMPORTED`] messages is imported into the same store; and the import's own time.
async fn time_sends_during_import(
    dir: &std::path::Path,
) -> (Vec<Duration>, Vec<Duration>, Duration) {
    let store = Store::open(&dir.join("import.db")).await.expect("open");
    store.create_session("chat", "").await.expect("session");
    let thread = long_thread(IMPORTED);
    let send = |store: Store| async move {
        let start = Instant::now();
        store
            .append_message(
                "chat",
                NewMessage::new("user", "Is the plumber still coming?"),
            )
            .await
            .expect("send");
        start.elapsed()
    };
    let mut quiet = Vec::new();
    for _ in 0..100 {
        quiet.push(send(store.clone()).await);
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    let importing = {
        let store = store.clone();
        tokio::spawn(async move {
            let start = Instant::now();
            store.write_import(&thread).await.expect("import");
            start.elapsed()
        })
    };
    let mut during = Vec::new();
    while !importing.is_finished() {
        during.push(send(store.clone()).await);
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let import = importing.await.expect("joined");
    store.close().await;
    quiet.sort();
    during.sort();
    (quiet, during, import)
}

/// Median time of knowledge retrieval's BM25 candidates (`memory::knowledge::bm25_candidates`:
/// memory state, statistics, matching items, ranking; no cache) in session "k0" of a new
/// database holding `sessions` sessions of 500 seeded messages each, all indexed.
async fn time_knowledge_search(dir: &std::path::Path, name: &str, sessions: usize) -> Duration {
    let path = dir.join(format!("{name}.db"));
    let store = Store::open(&path).await.expect("open");
    for i in 0..sessions {
        let key = format!("k{i}");
        store.create_session(&key, "").await.expect("session");
        seed(&path, &key, 500).await;
    }
    store.index_pending_messages().await.expect("index");
    let took = time_bm25(&store, "k0", "project plan next").await;
    store.close().await;
    took
}

/// The median of [`LOADS`] retrievals (BM25, nothing cached) of `query` in session `key`,
/// each finding a full page of 15 candidates.
async fn time_bm25(store: &Store, key: &str, query: &str) -> Duration {
    let mut samples = Vec::with_capacity(LOADS);
    for _ in 0..LOADS {
        let start = Instant::now();
        let hits = lango_core::memory::knowledge::bm25_candidates(store, key, query)
            .await
            .expect("search");
        samples.push(start.elapsed());
        assert_eq!(hits.len(), 15);
    }
    median(samples)
}

/// [`time_knowledge_search`] for a Chinese question in a session of 500 Chinese messages:
/// retrieval looks for each pair of neighbouring characters (`store::retrieval_words`).
async fn time_chinese_knowledge_search(dir: &std::path::Path) -> Duration {
    let store = Store::open(&dir.join("chinese-knowledge.db"))
        .await
        .expect("open");
    store.create_session("zh", "").await.expect("session");
    let topics = ["项目计划", "下一步", "天气", "拉面", "编程", "学习"];
    for i in 0..500 {
        let text = format!(
            "第{i}条消息：我们讨论了{}和{}，然后决定明天继续。",
            topics[i % topics.len()],
            topics[(i / topics.len()) % topics.len()]
        );
        store
            .append_message("zh", NewMessage::new("user", &text))
            .await
            .expect("append");
    }
    store.index_pending_messages().await.expect("index");
    let took = time_bm25(&store, "zh", "你还记得我们的项目计划和下一步吗").await;
    store.close().await;
    took
}
