//! `lango chat`: one turn or an interactive conversation, streamed to stdout.
//!
//! Prints the reply text on stdout and everything else (tool activity, notices) on stderr,
//! so `lango chat "…" > answer.txt` captures just the answer. With `--json`, every event is
//! one JSON line on stdout instead.

use std::io::{IsTerminal, Write};

use lango_core::agent::runner::run_and_collect_with;
use lango_core::agent::{AgentError, Event, RequestContext};
use lango_core::engine::Engine;
use lango_core::provider::ProviderError;

use super::Context;
use crate::args::ApproveMode;
use crate::exit::{CliError, Kind};

pub struct Options {
    pub session: Option<String>,
    pub new: bool,
    pub stream: bool,
    pub approve: ApproveMode,
    pub message: Option<String>,
}

/// Longest title taken from a conversation's first message.
const TITLE_CHARS: usize = 60;

pub async fn run(ctx: &Context, options: Options) -> Result<(), CliError> {
    let (engine, mcp) = Engine::start_with_tools(&ctx.paths).await?;
    // A one-shot message needs the servers' tools now: wait (bounded) for them to start.
    mcp.wait_started(std::time::Duration::from_secs(30)).await;
    let hooks = super::approve::hooks(options.approve, &ctx.paths);
    let ctx = &Context {
        paths: ctx.paths.clone(),
        json: ctx.json,
        hooks: Some(hooks),
    };
    let key = session_key(&engine, &options).await?;
    let result = match &options.message {
        Some(message) => turn(ctx, &engine, &key, message, options.stream).await,
        None => interactive(ctx, &engine, &key, options.stream).await,
    };
    // Finishes the memory cycle the last turn triggered before exiting (spec 002 "Graceful shutdown").
    engine.shutdown().await;
    mcp.shutdown();
    result
}

async fn session_key(engine: &Engine, options: &Options) -> Result<String, CliError> {
    if let Some(key) = &options.session {
        return Ok(key.clone());
    }
    if !options.new {
        if let Some(latest) = engine.store.list_sessions(1, 0).await?.into_iter().next() {
            return Ok(latest.key);
        }
    }
    let stamp = chrono::Local::now().format("%Y%m%d-%H%M%S");
    Ok(format!("chat-{stamp}-{:04x}", fastrand_u16()))
}

/// Four random hex digits so two chats started in the same second get different keys.
fn fastrand_u16() -> u16 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    (nanos ^ std::process::id()) as u16
}

async fn interactive(
    ctx: &Context,
    engine: &Engine,
    key: &str,
    stream: bool,
) -> Result<(), CliError> {
    let mut prompt = Prompt::new(ctx);
    if prompt.is_terminal() {
        eprintln!(
            "Lango · {} · conversation {key}. Ctrl-C stops a reply; Ctrl-D or /exit quits.",
            model_label(engine)
        );
    }
    while let Some(line) = prompt.next_line().await {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        if line == "/exit" || line == "/quit" {
            break;
        }
        match turn(ctx, engine, key, line, stream).await {
            Ok(()) => {}
            // In a conversation, a stopped or failed reply is reported and the prompt returns.
            Err(e) if e.kind != Kind::Store => eprintln!("lango: {}", e.message),
            Err(e) => return Err(e),
        }
    }
    prompt.save_history();
    Ok(())
}

/// Where messages come from: a line editor with history (arrow keys, saved between runs in
/// the data folder) on a terminal, plain lines from a pipe otherwise.
struct Prompt {
    editor: Option<rustyline::DefaultEditor>,
    history_file: std::path::PathBuf,
}

impl Prompt {
    fn new(ctx: &Context) -> Self {
        let history_file = ctx.paths.data_dir.join("chat_history.txt");
        let editor = std::io::stdin()
            .is_terminal()
            .then(rustyline::DefaultEditor::new)
            .and_then(Result::ok);
        let mut prompt = Self {
            editor,
            history_file,
        };
        if let Some(editor) = prompt.editor.as_mut() {
            let _ = editor.load_history(&prompt.history_file);
        }
        prompt
    }

    fn is_terminal(&self) -> bool {
        self.editor.is_some()
    }

    /// The next message; None at end of input, Ctrl-D or Ctrl-C at the prompt.
    async fn next_line(&mut self) -> Option<String> {
        let Some(mut editor) = self.editor.take() else {
            return read_line().await;
        };
        let (editor, line) = tokio::task::spawn_blocking(move || {
            eprintln!();
            let line = editor.readline("you › ").ok();
            if let Some(l) = line.as_deref().filter(|l| !l.trim().is_empty()) {
                let _ = editor.add_history_entry(l);
            }
            (editor, line)
        })
        .await
        .ok()?;
        self.editor = Some(editor);
        line
    }

    fn save_history(&mut self) {
        if let Some(editor) = self.editor.as_mut() {
            if let Some(dir) = self.history_file.parent() {
                let _ = std::fs::create_dir_all(dir);
            }
            let _ = editor.save_history(&self.history_file);
        }
    }
}

/// One line from stdin without blocking the runtime; None at end of input or on Ctrl-C.
async fn read_line() -> Option<String> {
    let read = tokio::task::spawn_blocking(|| {
        let mut line = String::new();
        match std::io::stdin().read_line(&mut line) {
            Ok(0) | Err(_) => None,
            Ok(_) => Some(line),
        }
    });
    tokio::select! {
        line = read => line.ok().flatten(),
        _ = tokio::signal::ctrl_c() => None,
    }
}

fn model_label(engine: &Engine) -> String {
    if engine.model.is_empty() {
        format!("{} (default model)", engine.provider_id)
    } else {
        format!("{} / {}", engine.provider_id, engine.model)
    }
}

/// Plays one turn, printing as events arrive. Ctrl-C cancels it.
async fn turn(
    ctx: &Context,
    engine: &Engine,
    key: &str,
    text: &str,
    stream: bool,
) -> Result<(), CliError> {
    name_new_session(engine, key, text).await;
    let mut request = RequestContext::for_session(key, engine.runner.root().name.clone());
    request.hooks = ctx.hooks.clone();
    let cancel = request.cancel.clone();
    let ctrl_c = tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            cancel.cancel();
        }
    });
    let mut out = Printer::new(ctx.json);
    // Whether the turn's last model reply stopped at the output limit.
    let mut truncated = false;
    // run_and_collect_with: streams through the printer, retries once when the model names a
    // sub-agent that does not exist (spec 003), and closes dangling tool calls after a failure.
    let (reply, outcome) = run_and_collect_with(
        &engine.runner,
        request,
        key,
        text,
        stream,
        &mut |event, reply| {
            if event.is_model_reply() {
                truncated = event.truncated;
            }
            out.event(event, reply)
        },
    )
    .await;
    ctrl_c.abort();
    out.finish();
    engine.after_turn(key);
    if outcome.is_ok() && truncated {
        eprintln!("{TRUNCATED_NOTICE}");
    }
    outcome.map_err(|e| {
        let cut_off = matches!(&e, AgentError::Provider(ProviderError::Interrupted { .. }));
        let mut err = CliError::from(e);
        if err.kind == Kind::Interrupted {
            err.message = "stopped; the reply so far is kept, marked interrupted".into();
        } else if cut_off && !reply.is_empty() {
            err.message
                .push_str(" (the reply so far is kept, marked interrupted)");
        }
        err
    })
}

/// Printed on stderr after a reply the model's output limit cut short.
const TRUNCATED_NOTICE: &str = "(cut at the output limit — send \"continue\" to get the rest)";

/// A new conversation is titled after its first message.
async fn name_new_session(engine: &Engine, key: &str, text: &str) {
    let Ok(session) = engine.store.get_or_create_session(key).await else {
        return;
    };
    if session.title.is_empty() {
        let mut title: String = text
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .chars()
            .take(TITLE_CHARS)
            .collect();
        if text.chars().count() > TITLE_CHARS {
            title.push('…');
        }
        let _ = engine.store.rename_session(key, &title).await;
    }
}

/// Writes the reply text `run_and_collect_with` hands over (it already never repeats text),
/// tool activity on stderr, or every event as JSON.
struct Printer {
    json: bool,
    wrote_text: bool,
}

impl Printer {
    fn new(json: bool) -> Self {
        Self {
            json,
            wrote_text: false,
        }
    }

    fn event(&mut self, event: &Event, reply: &str) {
        if self.json {
            if let Ok(line) = serde_json::to_string(event) {
                println!("{line}");
            }
            return;
        }
        if !reply.is_empty() {
            self.write(reply);
        }
        let Some(content) = event.content.as_ref().filter(|_| !event.partial) else {
            return;
        };
        for call in content
            .parts
            .iter()
            .filter_map(|p| p.function_call.as_ref())
        {
            self.notice(&format!(
                "[calling {}({})]",
                call.name,
                serde_json::Value::Object(call.args.clone())
            ));
        }
        for response in content
            .parts
            .iter()
            .filter_map(|p| p.function_response.as_ref())
        {
            let shown: String = serde_json::Value::Object(response.response.clone())
                .to_string()
                .chars()
                .take(200)
                .collect();
            self.notice(&format!("[{} returned {shown}]", response.name));
        }
    }

    fn write(&mut self, text: &str) {
        let mut stdout = std::io::stdout().lock();
        let _ = stdout.write_all(text.as_bytes());
        let _ = stdout.flush();
        self.wrote_text = true;
    }

    fn notice(&mut self, text: &str) {
        if self.wrote_text {
            println!();
            self.wrote_text = false;
        }
        eprintln!("{}", crate::output::clean_for_terminal(text));
    }

    fn finish(&mut self) {
        if self.wrote_text {
            println!();
        }
    }
}
