//! Fills a data folder with many conversations, fast, for `make bench-scale`
//! (`scripts/bench-scale.sh`): `<sessions>` conversations of `<messages>` messages each,
//! memory notes (observations and a reflection) in every tenth conversation, the search
//! index built, as the app leaves a database it has used for a long time.
//!
//! ```text
//! cargo run --release -p lango-core --example seed_scale -- <data-dir> <sessions> <messages>
//! ```
//!
//! The store creates the file and its schema (migrations); the rows are then written with
//! plain SQL in one transaction per conversation, through the same triggers the app's
//! appends fire (seq, the session's activity, the search queue), and each transaction
//! indexes what it queued the way `Store::index_pending_messages` does. Token counts are
//! estimated (a quarter of the bytes), not counted.
//!
//! The text is made of a fixed vocabulary drawn with a skewed (Zipf-like) frequency, so a
//! few words are in most messages. Words the bench searches for: `project` (about half of
//! the messages), `quetzal` (one message in 50,000: 20 at 1M, 1 in a conversation of
//! 1,000), `axolotl` (in exactly [`NEEDLE_HITS`] messages, spread from the oldest to the
//! newest, whatever the size: the same hits in both databases, so its ratio is what the
//! database's size alone does to a rare word), `borrow checker lifetimes` (three common-ish
//! words together).

use std::time::Instant;

use lango_core::paths::AppPaths;
use lango_core::store::Store;

/// Common English and programming words, most frequent first.
const VOCABULARY: &[&str] = &[
    "the",
    "to",
    "and",
    "a",
    "of",
    "in",
    "is",
    "it",
    "you",
    "that",
    "for",
    "with",
    "this",
    "on",
    "be",
    "can",
    "as",
    "are",
    "use",
    "or",
    "if",
    "not",
    "but",
    "your",
    "from",
    "file",
    "code",
    "function",
    "data",
    "test",
    "one",
    "when",
    "each",
    "then",
    "so",
    "value",
    "run",
    "error",
    "type",
    "return",
    "should",
    "would",
    "could",
    "make",
    "first",
    "new",
    "time",
    "build",
    "crate",
    "module",
    "struct",
    "trait",
    "string",
    "vector",
    "memory",
    "thread",
    "async",
    "await",
    "future",
    "channel",
    "lock",
    "mutex",
    "borrow",
    "checker",
    "lifetime",
    "lifetimes",
    "reference",
    "pointer",
    "heap",
    "stack",
    "cargo",
    "compile",
    "release",
    "debug",
    "window",
    "desktop",
    "sidebar",
    "message",
    "conversation",
    "search",
    "index",
    "query",
    "database",
    "table",
    "column",
    "row",
    "migration",
    "schema",
    "backup",
    "garden",
    "recipe",
    "travel",
    "train",
    "ticket",
    "weather",
    "coffee",
    "bread",
    "flour",
    "oven",
    "mountain",
    "river",
    "city",
    "museum",
    "budget",
    "invoice",
    "meeting",
    "calendar",
    "email",
    "report",
    "design",
    "layout",
    "colour",
    "button",
    "keyboard",
    "shortcut",
    "theme",
    "font",
    "network",
    "server",
    "request",
    "response",
    "header",
    "token",
    "stream",
    "socket",
    "retry",
    "timeout",
    "cache",
    "queue",
    "batch",
    "worker",
    "schedule",
    "deadline",
    "review",
    "merge",
    "branch",
    "commit",
    "history",
    "archive",
    "summary",
    "observation",
    "reflection",
    "note",
    "answer",
    "question",
    "example",
    "explain",
    "improve",
    "faster",
    "slower",
    "measure",
    "benchmark",
    "profile",
    "latency",
    "throughput",
    "percent",
    "ratio",
    "median",
    "sample",
];

/// A small deterministic generator (xorshift), so every run seeds the same text.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A word index skewed towards the front of the vocabulary.
    fn word(&mut self) -> &'static str {
        let u = (self.next() % 10_000) as f64 / 10_000.0;
        let i = (u * u * u * VOCABULARY.len() as f64) as usize;
        VOCABULARY[i.min(VOCABULARY.len() - 1)]
    }
}

/// How many messages hold `axolotl`, in any database this seeds.
const NEEDLE_HITS: u64 = 5;

/// Whether message `n` of `total` holds `axolotl`: [`NEEDLE_HITS`] of them, evenly spread.
fn holds_needle(n: u64, total: u64) -> bool {
    let stride = (total / NEEDLE_HITS).max(1);
    n % stride == 11 % stride && n / stride < NEEDLE_HITS
}

/// One message's text: a few sentences, some Markdown, the bench's marker words.
fn message_text(rng: &mut Rng, n: u64, total: u64) -> String {
    let mut text = String::new();
    let sentences = 1 + rng.next() % 3;
    for s in 0..sentences {
        let words = 5 + rng.next() % 12;
        for w in 0..words {
            if w > 0 {
                text.push(' ');
            }
            let word = rng.word();
            if s == 0 && w == 0 {
                let mut c = word.chars();
                if let Some(f) = c.next() {
                    text.extend(f.to_uppercase());
                    text.push_str(c.as_str());
                }
            } else if rng.next().is_multiple_of(40) {
                text.push_str(&format!("**{word}**"));
            } else if rng.next().is_multiple_of(50) {
                text.push_str(&format!("`{word}`"));
            } else {
                text.push_str(word);
            }
        }
        text.push_str(". ");
    }
    if n.is_multiple_of(2) {
        text.push_str("The project ");
        text.push_str(rng.word());
        text.push('.');
    }
    if n % 50_000 == 7 {
        text.push_str(" A quetzal flew past the window.");
    }
    if holds_needle(n, total) {
        text.push_str(" An axolotl looked back from the tank.");
    }
    if n % 10 == 3 {
        text.push_str("\n\n## Notes\n\n- see [the docs](https://example.com/docs) for more");
    }
    text.trim_end().to_owned()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let usage = "usage: seed_scale <data-dir> <sessions> <messages-per-session>";
    let dir = args.next().ok_or(usage)?;
    let sessions: u64 = args.next().ok_or(usage)?.parse()?;
    let per_session: u64 = args.next().ok_or(usage)?.parse()?;
    let paths = AppPaths::under(std::path::Path::new(&dir));

    // The store creates the file and applies the migrations.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let db_path = runtime.block_on(async {
        let store = Store::open_app(&paths).await?;
        let path = store.path().to_path_buf();
        store.close().await;
        Ok::<_, lango_core::store::StoreError>(path)
    })?;

    let started = Instant::now();
    let mut db = rusqlite::Connection::open(&db_path)?;
    db.execute_batch("PRAGMA journal_mode = WAL; PRAGMA synchronous = OFF;")?;
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    // Old enough that every message is in the past; a minute between messages.
    let base = chrono::Utc::now().timestamp_millis() - (sessions * per_session * 60_000) as i64;
    let mut n: u64 = 0;
    for s in 0..sessions {
        let tx = db.transaction()?;
        let created = base + (s * per_session * 60_000) as i64;
        tx.execute(
            "INSERT INTO sessions (key, title, created_at, updated_at) VALUES (?1, ?2, ?3, ?3)",
            rusqlite::params![
                format!("scale-{s:05}"),
                format!("Conversation {s}: {} and {}", rng.word(), rng.word()),
                created
            ],
        )?;
        let session_id = tx.last_insert_rowid();
        {
            let mut insert = tx.prepare_cached(
                "INSERT INTO messages (session_id, seq, role, content, token_count, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?;
            for m in 0..per_session {
                let role = if m.is_multiple_of(2) {
                    "user"
                } else {
                    "assistant"
                };
                let text = message_text(&mut rng, n, sessions * per_session);
                insert.execute(rusqlite::params![
                    session_id,
                    (m + 1) as i64,
                    role,
                    &text,
                    (text.len() / 4) as i64,
                    created + (m * 60_000) as i64
                ])?;
                n += 1;
            }
        }
        if s.is_multiple_of(10) {
            seed_notes(&tx, &mut rng, session_id, per_session, created)?;
        }
        // What `Store::index_pending_messages` does with the queue.
        tx.execute_batch(
            "INSERT INTO message_fts (rowid, text, session_id)
                 SELECT m.id, m.content, m.session_id
                   FROM message_fts_pending p JOIN messages m ON m.id = p.id;
             DELETE FROM message_fts_pending;",
        )?;
        tx.commit()?;
    }
    // The words a search expands the word being typed into (what the indexing adds as it
    // goes, migration 0009), and the index segments merged, as the app's periodic tidying
    // eventually does.
    db.execute_batch(
        "CREATE VIRTUAL TABLE temp.seed_vocab USING fts5vocab (main, message_fts, 'col');
         INSERT OR IGNORE INTO search_terms (term) SELECT term FROM seed_vocab WHERE col = 'text';
         DROP TABLE temp.seed_vocab;
         INSERT INTO message_fts (message_fts) VALUES ('optimize');
         PRAGMA wal_checkpoint(TRUNCATE);",
    )?;
    println!(
        "seeded {sessions} conversations × {per_session} messages ({n}) into {dir} in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Observations over the conversation in blocks of 100 messages, and one reflection.
fn seed_notes(
    tx: &rusqlite::Transaction<'_>,
    rng: &mut Rng,
    session_id: i64,
    per_session: u64,
    created: i64,
) -> rusqlite::Result<()> {
    let mut block = 0;
    while block * 100 < per_session {
        let text = format!(
            "The user is working on the project {} and asked about {} and {}.",
            rng.word(),
            rng.word(),
            rng.word()
        );
        tx.execute(
            "INSERT INTO observations (id, session_id, content, token_count, seq_start, seq_end, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            rusqlite::params![
                format!("obs-{session_id}-{block}"),
                session_id,
                &text,
                (text.len() / 4) as i64,
                (block * 100 + 1) as i64,
                ((block + 1) * 100).min(per_session.max(1)) as i64,
                created + (block * 100 * 60_000) as i64
            ],
        )?;
        block += 1;
    }
    let text = format!(
        "Over the conversation the user built a {} and a {}; the project is nearly done.",
        rng.word(),
        rng.word()
    );
    tx.execute(
        "INSERT INTO reflections (id, session_id, content, token_count, seq_start, seq_end, created_at)
         VALUES (?1, ?2, ?3, ?4, 1, ?5, ?6)",
        rusqlite::params![
            format!("ref-{session_id}"),
            session_id,
            &text,
            (text.len() / 4) as i64,
            per_session.max(1) as i64,
            created + (per_session * 60_000) as i64
        ],
    )?;
    Ok(())
}
