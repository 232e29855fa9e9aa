//! Fills a data folder with one long conversation, for measuring the desktop app on it
//! (`scripts/perf-desktop.sh`).
//!
//! ```text
//! cargo run -p lango-core --example seed_session -- <data-dir> <session-key> <messages>
//! ```

use lango_core::paths::AppPaths;
use lango_core::store::{NewMessage, Store};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let usage = "usage: seed_session <data-dir> <session-key> <messages>";
    let dir = args.next().ok_or(usage)?;
    let key = args.next().ok_or(usage)?;
    let count: usize = args.next().ok_or(usage)?.parse()?;
    let store = Store::open_app(&AppPaths::under(std::path::Path::new(&dir))).await?;
    store
        .create_session(&key, &format!("{count} messages"))
        .await?;
    for i in 0..count {
        let (role, text) = if i % 2 == 0 {
            ("user", format!("Question {i}: how would you structure a **Rust** workspace with a GUI-free engine and a thin desktop shell?"))
        } else {
            ("assistant", format!("Answer {i}: keep the engine in its own crate.\n\n```rust\nfn main() {{ println!(\"{i}\"); }}\n```\n\n- one concept per module\n- tests next to the code"))
        };
        store
            .append_message(&key, NewMessage::new(role, text))
            .await?;
    }
    store.close().await;
    println!("seeded {count} messages into session {key} in {dir}");
    Ok(())
}
