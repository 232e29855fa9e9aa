//! `lango chat`: one turn or an interactive conversation, streamed to stdout.
//!
//! Prints the reply text on stdout and everything else (tool activity, notices) on stderr,
//! so `lango chat "…" > answer.txt` captures just the answer. With `--json`, every event is
//! one JSON line on stdout instead.

use std::io::IsTerminal;

use lango_core::agent::runner::run_and_collect_with;
use lango_core::agent::{AgentError, Event, RequestContext, UserInput};
use lango_core::engine::Engine;
use lango_core::provider::ProviderError;
use lango_core::store::AttachmentRef;

use super::Context;
use crate::args::ApproveMode;
use crate::exit::{CliError, Kind};
use crate::input::PipedLines;
use crate::signals::Signals;
use crate::terminal::{self, errln, outln, Sanitizer};

pub struct Options {
    pub session: Option<String>,
    pub new: bool,
    pub stream: bool,
    pub approve: ApproveMode,
    /// Switch the conversation to this provider / model (kept).
    pub provider: Option<String>,
    pub model: Option<String>,
    /// Files to attach to the message (the first one typed, without `message`).
    pub attach: Vec<std::path::PathBuf>,
    pub message: Option<String>,
}

/// How long a chat waits for MCP servers still starting before it sends.
const TOOLS_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// Longest title taken from a conversation's first message.
const TITLE_CHARS: usize = 60;

pub async fn run(ctx: &Context, options: Options) -> Result<(), CliError> {
    // Before the engine starts, so a signal at any point is handled (see signals.rs).
    let signals = Signals::listen();
    let (engine, mcp) = Engine::start_with_tools(&ctx.paths).await?;
    // The first message needs the servers' tools: wait for them to start, but not for one
    // that hangs (its own start timeout is 30 s, which every message would have waited).
    mcp.wait_started(TOOLS_WAIT).await;
    for server in mcp.describe().iter().filter(|s| s.state == "starting") {
        errln!(
            "lango: the MCP server \"{}\" is still starting after {} s; its tools are left out until it is ready (`lango mcp test {}` shows why)",
            server.name,
            TOOLS_WAIT.as_secs(),
            server.name
        );
    }
    let hooks = super::approve::hooks(options.approve, &ctx.paths);
    let ctx = &Context {
        paths: ctx.paths.clone(),
        json: ctx.json,
        hooks: Some(hooks),
    };
    let key = session_key(&engine, &options).await?;
    if options.provider.is_some() || options.model.is_some() {
        switch_model(&engine, &key, &options).await?;
    }
    let attachments = super::attach::store_files(&engine, &options.attach).await?;
    super::attach::check_model_takes_images(&engine, &key, &attachments).await?;
    let result = match &options.message {
        Some(message) => {
            let input = UserInput {
                text: message.clone(),
                attachments,
            };
            turn(ctx, &engine, &signals, &key, input, options.stream).await
        }
        None => interactive(ctx, &engine, &signals, &key, attachments, options.stream).await,
    };
    signals.closing();
    // Finishes the memory cycle the last turn triggered before exiting (spec 002 "Graceful shutdown").
    engine.shutdown().await;
    mcp.shutdown();
    match signals.ending() {
        // Stopped between turns (waiting for input): the signal's exit code all the same.
        Some(stop) if result.is_ok() => Err(CliError::new(
            stop.kind(),
            format!("stopped by {}", stop.name()),
        )),
        _ => result,
    }
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

/// `--provider` / `--model`: the conversation's own model from now on, checked as the
/// desktop checks it (a configured provider, a model it can serve).
async fn switch_model(engine: &Engine, key: &str, options: &Options) -> Result<(), CliError> {
    let mut own = engine.store.get_or_create_session(key).await?.chat_settings;
    if let Some(provider) = &options.provider {
        own.provider = Some(provider.clone());
        // Another provider starts from its own default unless a model is named.
        own.model = None;
    }
    if let Some(model) = &options.model {
        own.model = Some(model.clone());
    }
    let own = own.normalized();
    own.check(&engine.settings)
        .map_err(|e| CliError::new(Kind::Config, e.to_string()))?;
    engine.store.set_chat_settings(key, &own).await?;
    Ok(())
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
    signals: &Signals,
    key: &str,
    mut attachments: Vec<AttachmentRef>,
    stream: bool,
) -> Result<(), CliError> {
    let mut prompt = Prompt::new(ctx);
    // A session that stays open has time for what the desktop app does in the background.
    engine.store.start_moving_legacy_results();
    if prompt.is_terminal() {
        let turn = engine.turn(key).await?;
        errln!(
            "Lango · {} · conversation {key}. Ctrl-C stops a reply; Ctrl-D or /exit quits.",
            model_label(&turn.provider, &turn.model)
        );
    }
    let mut ended = Ok(());
    while let Some(line) = prompt.next_line(signals).await? {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        if line == "/exit" || line == "/quit" {
            break;
        }
        // `--attach` files go with the first message.
        let input = UserInput {
            text: line.to_owned(),
            attachments: std::mem::take(&mut attachments),
        };
        match turn(ctx, engine, signals, key, input, stream).await {
            Ok(()) => {}
            // SIGTERM/SIGHUP: the reply is kept and the chat ends.
            Err(e) if signals.ending().is_some() => {
                ended = Err(e);
                break;
            }
            // In a conversation, a stopped or failed reply is reported and the prompt returns.
            Err(e) if e.kind != Kind::Store => errln!("lango: {}", e.message),
            Err(e) => return Err(e),
        }
        if signals.ending().is_some() {
            break;
        }
    }
    prompt.save_history();
    ended
}

/// Where messages come from: a line editor with history (arrow keys, saved between runs in
/// the data folder) on a terminal, plain lines from a pipe otherwise.
struct Prompt {
    editor: Option<rustyline::DefaultEditor>,
    /// The terminal's mode before the editor's raw mode, for when a signal ends the chat.
    mode: terminal::mode::SavedMode,
    piped: PipedLines,
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
            mode: terminal::mode::SavedMode::save(),
            piped: PipedLines::default(),
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

    /// The next message; None at end of input, Ctrl-D or Ctrl-C at the prompt, or once a
    /// signal ended the chat. Piped input that is not UTF-8 is an error.
    async fn next_line(&mut self, signals: &Signals) -> Result<Option<String>, CliError> {
        let Some(mut editor) = self.editor.take() else {
            return tokio::select! {
                line = self.piped.next() => line,
                () = signals.ended() => Ok(None),
            };
        };
        let read = tokio::task::spawn_blocking(move || {
            errln!();
            let line = editor.readline("you › ").ok();
            if let Some(l) = line.as_deref().filter(|l| !l.trim().is_empty()) {
                let _ = editor.add_history_entry(l);
            }
            (editor, line)
        });
        let (editor, line) = tokio::select! {
            read = read => match read {
                Ok(read) => read,
                Err(_) => return Ok(None),
            },
            () = signals.ended() => {
                self.mode.restore();
                return Ok(None);
            }
        };
        self.editor = Some(editor);
        Ok(line)
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

fn model_label(provider: &str, model: &str) -> String {
    if model.is_empty() {
        format!("{provider} (default model)")
    } else {
        format!("{provider} / {model}")
    }
}

/// Plays one turn, printing as events arrive. Ctrl-C, SIGTERM and SIGHUP cancel it.
async fn turn(
    ctx: &Context,
    engine: &Engine,
    signals: &Signals,
    key: &str,
    input: UserInput,
    stream: bool,
) -> Result<(), CliError> {
    let title = match input.attachments.first() {
        Some(a) if input.text.trim().is_empty() => a.name.clone(),
        _ => input.text.clone(),
    };
    name_new_session(engine, key, &title).await;
    let mut request = RequestContext::for_session(key, engine.runner.root().name.clone());
    request.hooks = ctx.hooks.clone();
    // The conversation's own model and settings (its replies are stored as written by it).
    request.turn = Some(std::sync::Arc::new(engine.turn(key).await?));
    let watching = signals.during_turn(request.cancel.clone());
    let mut out = Printer::new(ctx.json);
    // Whether the turn's last model reply stopped at the output limit.
    let mut truncated = false;
    // run_and_collect_with: streams through the printer, retries once when the model names a
    // sub-agent that does not exist (spec 003), and closes dangling tool calls after a failure.
    let (reply, outcome) = run_and_collect_with(
        &engine.runner,
        request,
        key,
        input,
        stream,
        &mut |event, reply| {
            if event.is_model_reply() {
                truncated = event.truncated;
            }
            out.event(event, reply)
        },
    )
    .await;
    drop(watching);
    out.finish();
    engine.after_turn(key);
    if outcome.is_ok() && truncated {
        errln!("{TRUNCATED_NOTICE}");
    }
    outcome.map_err(|e| {
        let cut_off = matches!(&e, AgentError::Provider(ProviderError::Interrupted { .. }));
        let mut err = CliError::from(e);
        if err.kind != Kind::Interrupted {
            if cut_off && !reply.is_empty() {
                err.message
                    .push_str(" (the reply so far is kept, marked interrupted)");
            }
            return err;
        }
        CliError::stopped(signals.ending().unwrap_or(crate::signals::Stop::Interrupt))
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
/// tool activity on stderr, or every event as JSON. The reply passes one streaming
/// [`Sanitizer`] per turn, so a control sequence split across deltas is still removed.
struct Printer {
    json: bool,
    wrote_text: bool,
    reply: Sanitizer,
}

impl Printer {
    fn new(json: bool) -> Self {
        Self {
            json,
            wrote_text: false,
            reply: Sanitizer::new(),
        }
    }

    fn event(&mut self, event: &Event, reply: &str) {
        if self.json {
            if let Ok(line) = serde_json::to_string(event) {
                terminal::out_clean(&terminal::json_escaped(line + "\n"));
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
        terminal::out_clean(&self.reply.push(text));
        self.wrote_text = true;
    }

    fn notice(&mut self, text: &str) {
        if self.wrote_text {
            outln!();
            self.wrote_text = false;
        }
        errln!("{text}");
    }

    fn finish(&mut self) {
        if self.wrote_text {
            outln!();
        }
    }
}
