//! `lango memory list|status|clear|inspect|update`.

use lango_core::engine::Engine;
use lango_core::memory::cycle::MemoryCycle;
use lango_core::store::Store;
use serde_json::json;

use super::Context;
use crate::args::MemoryCommand;
use crate::exit::{CliError, Kind};
use crate::output;
use crate::terminal::outln;

pub async fn run(ctx: &Context, command: &MemoryCommand) -> Result<(), CliError> {
    match command {
        MemoryCommand::List { session } => {
            // Reading works in a folder Lango cannot write.
            let store = Store::open_app_for_reading(&ctx.paths).await?;
            let result = list(ctx, &store, session.as_deref()).await;
            store.close().await;
            result
        }
        MemoryCommand::Clear { session, yes } => {
            let store = Store::open_app(&ctx.paths).await?;
            let result = clear(&store, session, *yes).await;
            store.close().await;
            result
        }
        MemoryCommand::Status { session } => {
            let engine = Engine::start(&ctx.paths).await?;
            let result = status(ctx, &engine, session.as_deref()).await;
            engine.shutdown().await;
            result
        }
        MemoryCommand::Inspect { session } => {
            let engine = Engine::start(&ctx.paths).await?;
            let result = inspect(ctx, &engine, session.as_deref()).await;
            engine.shutdown().await;
            result
        }
        MemoryCommand::Update { session } => {
            let engine = Engine::start(&ctx.paths).await?;
            let result = update(ctx, &engine, session.as_deref()).await;
            engine.shutdown().await;
            result
        }
    }
}

/// Cycles one `lango memory update` runs at most: each observes one batch (and reflects when
/// due), so a long backlog takes several; the bound only guards against a loop.
const MAX_UPDATE_CYCLES: usize = 100;

/// Runs memory cycles for the conversation until nothing more is due, each to its end.
async fn update(ctx: &Context, engine: &Engine, session: Option<&str>) -> Result<(), CliError> {
    let key = pick(&engine.store, session).await?;
    let cycle = cycle(engine)?;
    let (mut observations, mut reflections) = (0usize, 0usize);
    for _ in 0..MAX_UPDATE_CYCLES {
        let report = cycle.run(&key).await;
        let failed = [
            &report.observe_error,
            &report.reflect_error,
            &report.meta_reflect_error,
        ]
        .into_iter()
        .flatten()
        .next()
        .cloned();
        observations += usize::from(report.observation.is_some());
        reflections += usize::from(report.reflection.is_some())
            + usize::from(report.meta_reflection.is_some());
        if let Some(error) = failed {
            return Err(CliError::new(
                Kind::Provider,
                format!(
                    "memory of {key}: {} and {} before it failed: {error}",
                    counted(observations, "new observation"),
                    counted(reflections, "new reflection")
                ),
            ));
        }
        if report.observation.is_none()
            && report.reflection.is_none()
            && report.meta_reflection.is_none()
        {
            break;
        }
    }
    if ctx.json {
        return output::json(&json!({
            "session": key,
            "observations": observations,
            "reflections": reflections,
        }));
    }
    outln!(
        "memory of {key}: {}, {}",
        counted(observations, "new observation"),
        counted(reflections, "new reflection")
    );
    Ok(())
}

/// "1 new observation", "2 new observations".
fn counted(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

/// The given session, else the most recent one.
async fn pick(store: &Store, session: Option<&str>) -> Result<String, CliError> {
    if let Some(key) = session {
        store.get_session(key).await?;
        return Ok(key.to_owned());
    }
    let latest = store.list_sessions(1, 0).await?.into_iter().next();
    latest
        .map(|s| s.key)
        .ok_or_else(|| CliError::new(Kind::Usage, "no conversations yet"))
}

async fn list(ctx: &Context, store: &Store, session: Option<&str>) -> Result<(), CliError> {
    let key = pick(store, session).await?;
    let reflections = store.list_reflections(&key).await?;
    let observations = store.list_observations(&key).await?;
    if ctx.json {
        return output::json(
            &json!({"session": key, "reflections": reflections, "observations": observations}),
        );
    }
    if reflections.is_empty() && observations.is_empty() {
        outln!("Nothing in memory for {key} yet.");
        return Ok(());
    }
    for r in &reflections {
        outln!(
            "reflection (gen {}) · {} · {} tokens, condensed {} · messages {}–{}\n  {}\n",
            r.generation,
            output::time(r.created_at),
            r.token_count,
            r.source_token_count,
            r.seq_start,
            r.seq_end,
            r.content
        );
    }
    for o in &observations {
        outln!(
            "observation · {} · {} tokens · messages {}–{}\n  {}\n",
            output::time(o.created_at),
            o.token_count,
            o.seq_start,
            o.seq_end,
            o.content
        );
    }
    Ok(())
}

async fn clear(store: &Store, key: &str, yes: bool) -> Result<(), CliError> {
    store.get_session(key).await?;
    if !yes
        && !output::confirm(
            &format!("Delete every observation and reflection of {key}? The messages stay."),
            "clear memory",
        )?
    {
        outln!("kept the memory of {key}");
        return Ok(());
    }
    let observations = store.delete_observations_by_session(key).await?;
    let reflections = store.delete_reflections_by_session(key).await?;
    outln!("cleared {observations} observations and {reflections} reflections of {key}");
    Ok(())
}

fn cycle(engine: &Engine) -> Result<&MemoryCycle, CliError> {
    engine
        .memory
        .as_ref()
        .map(|m| m.cycle.as_ref())
        .ok_or_else(|| {
            CliError::new(
                Kind::Config,
                "observational memory is off: set observationalMemory.enabled to true",
            )
        })
}

async fn status(ctx: &Context, engine: &Engine, session: Option<&str>) -> Result<(), CliError> {
    let key = pick(&engine.store, session).await?;
    let status = cycle(engine)?
        .status(&key)
        .await
        .map_err(|e| CliError::new(Kind::Store, e.to_string()))?;
    if ctx.json {
        return output::json(&status);
    }
    outln!("memory of {key}: {:?}", status.phase);
    outln!(
        "  not yet observed  {:>6} / {} tokens",
        status.unobserved_tokens,
        status.message_token_threshold
    );
    outln!(
        "  observations      {:>6} / {} tokens ({})",
        status.observation_tokens,
        status.observation_token_threshold,
        counted(status.observations, "note")
    );
    outln!("  reflections       {:>6}", status.reflections);
    if let Some(failure) = &status.last_error {
        let when = chrono::DateTime::from_timestamp_millis(failure.failed_at)
            .map(|t| t.format("%Y-%m-%d %H:%M:%S UTC").to_string())
            .unwrap_or_else(|| "an unknown time".to_owned());
        outln!("  last error        {when}: {}", failure.error);
        outln!("                    it will try again after the next turn (or now: lango memory update)");
    }
    Ok(())
}

async fn inspect(ctx: &Context, engine: &Engine, session: Option<&str>) -> Result<(), CliError> {
    let key = pick(&engine.store, session).await?;
    let assembled = engine.inspect(&key).await?;
    if ctx.json {
        return output::json(&json!({
            "session": key,
            "systemPrompt": assembled.system_prompt,
            "sections": assembled.sections.iter().map(|s| json!({"name": s.name, "tokens": s.tokens, "budget": s.budget})).collect::<Vec<_>>(),
            "historyTokens": assembled.history_tokens,
            "historyBudget": engine.history_budget,
            "messages": assembled.contents.len(),
            "summariesNotRepeated": assembled.summaries_not_repeated,
            "summaryTokensSaved": assembled.summary_tokens_saved,
        }));
    }
    outln!("== sections");
    for s in &assembled.sections {
        match s.budget {
            Some(b) => outln!("  {:<10} {:>6} / {b} tokens", s.name, s.tokens),
            None => outln!("  {:<10} {:>6} tokens", s.name, s.tokens),
        }
    }
    outln!(
        "  {:<10} {:>6} / {} tokens ({} messages)",
        "history",
        assembled.history_tokens,
        engine.history_budget,
        assembled.contents.len()
    );
    if assembled.summaries_not_repeated > 0 {
        outln!(
            "  summary not repeated: already in memory ({} tokens saved)",
            assembled.summary_tokens_saved
        );
    }
    outln!("\n== system prompt\n{}", assembled.system_prompt);
    outln!("\n== history");
    for c in &assembled.contents {
        let text = c.text();
        let shown: String = text.chars().take(200).collect();
        outln!(
            "[{}] {}{}",
            c.role,
            shown,
            if text.chars().count() > 200 {
                "…"
            } else {
                ""
            }
        );
    }
    Ok(())
}
