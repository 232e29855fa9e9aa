//! Runs the scriptable fake provider standalone (for the desktop e2e tests):
//!
//! ```text
//! lango-fake-provider --port 8089 --script script.json
//! ```
//!
//! Prints `listening on http://127.0.0.1:<port>` once it accepts connections (`--port 0`
//! picks a free port, printed there), then serves until killed. Point any provider's base
//! URL at that address (OpenAI: `…/v1`, Anthropic: `…`, Gemini: `…/v1beta`, Ollama: `…`).
//!
//! Then, as they happen, one line per request received
//! (`request {"method":…,"path":…,"body":…}`) and per connection the client closed before
//! the reply ended (`closed_early <total>`), so a test driving an app can check what the
//! app sent and that "stop" really closed the connection.

use std::io::Write;
use std::path::PathBuf;

use clap::Parser;
use lango_testkit::fake::{relay, FakeProvider, Script};

#[derive(Debug, Parser)]
#[command(
    name = "lango-fake-provider",
    about = "A scriptable fake model provider (OpenAI, Anthropic, Gemini, Ollama wire formats)"
)]
struct Args {
    /// Port on 127.0.0.1 (0 = any free port).
    #[arg(long, default_value_t = 0)]
    port: u16,
    /// The script: JSON, `{"turns":[…],"models":[…],"require_key":"…"}` or just the turns array.
    /// Without it, every request gets a short text answer.
    #[arg(long)]
    script: Option<PathBuf>,
}

#[tokio::main]
async fn main() {
    let args = Args::parse();
    let script = match &args.script {
        None => Script::default(),
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .unwrap_or_else(|e| fail(&format!("cannot read {}: {e}", path.display())));
            Script::from_json(&text)
                .unwrap_or_else(|e| fail(&format!("invalid script {}: {e}", path.display())))
        }
    };
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", args.port))
        .await
        .unwrap_or_else(|e| fail(&format!("cannot listen on 127.0.0.1:{}: {e}", args.port)));
    let port = listener.local_addr().map(|a| a.port()).unwrap_or(args.port);
    let fake = FakeProvider::start(script).await;
    let relaying = tokio::spawn(relay(listener, fake.port));
    println!("listening on http://127.0.0.1:{port}");
    let _ = std::io::stdout().flush();
    let fake = std::sync::Arc::new(fake);
    let watched = std::sync::Arc::clone(&fake);
    tokio::spawn(async move {
        let (mut seen_requests, mut seen_closed) = (0, 0);
        loop {
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            let mut out = std::io::stdout().lock();
            let requests = watched.requests();
            for r in requests.iter().skip(seen_requests) {
                let line = serde_json::json!({"method": r.method, "path": r.path, "body": r.body});
                let _ = writeln!(out, "request {line}");
            }
            seen_requests = requests.len();
            let closed = watched.closed_early();
            if closed != seen_closed {
                let _ = writeln!(out, "closed_early {closed}");
                seen_closed = closed;
            }
            let _ = out.flush();
        }
    });
    tokio::select! {
        _ = relaying => {}
        _ = tokio::signal::ctrl_c() => {}
    }
    for r in fake.requests() {
        eprintln!("served: {} {}", r.method, r.path);
    }
}

fn fail(message: &str) -> ! {
    eprintln!("lango-fake-provider: {message}");
    std::process::exit(2)
}
