//! `lango import FILE [--build-memory [--yes]]`: a ChatGPT or Claude export into the
//! database, with progress on a terminal and a summary; optionally the memory of what was
//! imported, after showing what that sends to the memory model.

use std::path::Path;
use std::sync::Arc;

use lango_core::engine::Engine;
use lango_core::import::memory::{self, BuildReport, MemoryEstimate};
use lango_core::import::{ImportProgress, ImportSummary, SkipCount};
use lango_core::store::Store;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::Context;
use crate::exit::{CliError, Kind};
use crate::output;
use crate::terminal::{self, errln, outln};

pub async fn run(
    ctx: &Context,
    file: &Path,
    build_memory: bool,
    yes: bool,
) -> Result<(), CliError> {
    if !build_memory {
        let store = Store::open_app(&ctx.paths).await?;
        let result = import(ctx, &store, file).await.map(|_| ());
        store.close().await;
        return result;
    }
    // The memory must work before anything is imported for it.
    let engine = Engine::start(&ctx.paths).await?;
    let result = import_and_build(ctx, &engine, file, yes).await;
    engine.shutdown().await;
    result
}

async fn import_and_build(
    ctx: &Context,
    engine: &Engine,
    file: &Path,
    yes: bool,
) -> Result<(), CliError> {
    let Some(memory) = &engine.memory else {
        return Err(CliError::new(
            Kind::Config,
            "--build-memory needs the observational memory on: set \"observationalMemory\": {\"enabled\": true} in the settings (`lango config path` shows where). Nothing was imported",
        ));
    };
    let summary = import(ctx, &engine.store, file).await?;
    let estimate = memory::estimate(memory.cycle.observer(), &engine.store, &summary.sessions)
        .await
        .map_err(|e| CliError::new(Kind::Store, e.to_string()))?;
    if estimate.observer_calls == 0 {
        errln!("Nothing to build: the imported conversations are too short to observe yet.");
        return Ok(());
    }
    errln!(
        "{}",
        describe_estimate(&estimate, &engine.settings.observational_memory.model)
    );
    if !yes
        && !output::confirm(
            "Build the memory now?",
            "send the conversations to the memory model",
        )?
    {
        errln!("The memory was not built; it builds up as you continue the conversations.");
        return Ok(());
    }
    let progress = |p: memory::BuildProgress| {
        terminal::progress(&format!(
            "Building memory: {} of {} conversations, {} notes",
            p.done, p.total, p.notes
        ));
    };
    let report = memory::build(
        &memory.cycle,
        &summary.sessions,
        &progress,
        &CancellationToken::new(),
    )
    .await;
    terminal::progress_done();
    print_build(ctx, &report)?;
    if report.failures.is_empty() {
        Ok(())
    } else {
        Err(CliError::new(
            Kind::Provider,
            format!(
                "the memory could not be built for {} conversation(s); it is tried again after their next turn",
                report.failures.len()
            ),
        ))
    }
}

async fn import(ctx: &Context, store: &Store, file: &Path) -> Result<ImportSummary, CliError> {
    let name = file.display().to_string();
    let progress = move |p: ImportProgress| match p {
        ImportProgress::Reading {
            bytes_read,
            total_bytes,
        } => terminal::progress(&format!(
            "Reading {name}: {:.1} of {:.1} MB",
            mb(bytes_read),
            mb(total_bytes)
        )),
        ImportProgress::Writing { done, total } => {
            terminal::progress(&format!("Writing conversations: {done} of {total}"))
        }
    };
    let result =
        lango_core::import::import_file(store, file, Arc::new(progress), CancellationToken::new())
            .await;
    terminal::progress_done();
    let summary = result?;
    print_summary(ctx, &summary)?;
    Ok(summary)
}

fn mb(bytes: u64) -> f64 {
    bytes as f64 / 1_000_000.0
}

fn print_summary(ctx: &Context, s: &ImportSummary) -> Result<(), CliError> {
    if ctx.json {
        return output::json(s);
    }
    outln!(
        "Imported from {}: {} new conversation(s), {} updated, {} unchanged ({} in the file); {} message(s).",
        s.source.label(),
        s.created,
        s.updated,
        s.unchanged,
        s.conversations,
        s.messages_imported
    );
    let list = |heading: &str, counts: &[SkipCount]| {
        if counts.is_empty() {
            return;
        }
        outln!("{heading}");
        for c in counts {
            let titles: Vec<String> = c.titles.iter().map(|t| format!("{t:?}")).collect();
            let more = if c.count > c.titles.len() && !c.titles.is_empty() {
                ", …"
            } else {
                ""
            };
            if titles.is_empty() {
                outln!("  {} × {}", c.count, c.description);
            } else {
                outln!(
                    "  {} × {}: {}{more}",
                    c.count,
                    c.description,
                    titles.join(", ")
                );
            }
        }
    };
    list("Skipped conversations:", &s.skipped_conversations);
    list("Skipped messages:", &s.skipped_messages);
    if s.notes > 0 {
        outln!(
            "{} image(s), file(s) or other part(s) kept as a note such as [image: file-…].",
            s.notes
        );
    }
    if s.cancelled {
        outln!("Stopped before the end: the conversations written so far are kept.");
    }
    Ok(())
}

fn describe_estimate(e: &MemoryEstimate, model: &str) -> String {
    let model = if model.is_empty() {
        "the agent's model".to_owned()
    } else {
        model.to_owned()
    };
    format!(
        "Building the memory of {} conversation(s) sends about {} tokens to the memory model ({model}): {} to the observer in {} call(s), and at most {} more for reflections.",
        e.sessions, e.tokens, e.observer_tokens, e.observer_calls, e.reflector_tokens_at_most
    )
}

fn print_build(ctx: &Context, r: &BuildReport) -> Result<(), CliError> {
    if ctx.json {
        return output::json(&json!({ "memory": r }));
    }
    outln!(
        "Memory built: {} observation(s), {} reflection(s) for {} conversation(s).",
        r.observations,
        r.reflections,
        r.sessions
    );
    for (key, error) in &r.failures {
        errln!("  {key}: {error}");
    }
    Ok(())
}
