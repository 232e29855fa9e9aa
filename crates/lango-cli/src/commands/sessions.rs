//! `lango sessions list|show|rename|pin|delete|export`.

use lango_core::export;
use lango_core::store::Store;

use super::Context;
use crate::args::{ExportFormat, SessionsCommand};
use crate::exit::{CliError, Kind};
use crate::output;
use crate::terminal::{self, errln, outln};

pub async fn run(ctx: &Context, command: &SessionsCommand) -> Result<(), CliError> {
    let store = match command {
        // Reading works in a folder Lango cannot write (a read-only mount, a backup copy).
        SessionsCommand::List { .. }
        | SessionsCommand::Show { .. }
        | SessionsCommand::Export { .. } => Store::open_app_for_reading(&ctx.paths).await?,
        _ => Store::open_app(&ctx.paths).await?,
    };
    let result = match command {
        SessionsCommand::List { limit, offset } => list(ctx, &store, *limit, *offset).await,
        SessionsCommand::Show { key } => show(ctx, &store, key).await,
        SessionsCommand::Rename { key, title } => {
            store.rename_session(key, title).await?;
            outln!("renamed {key} to {title:?}");
            Ok(())
        }
        SessionsCommand::Pin { key, off } => {
            store.pin_session(key, !off).await?;
            outln!("{} {key}", if *off { "unpinned" } else { "pinned" });
            Ok(())
        }
        SessionsCommand::Delete { key, yes } => delete(&store, key, *yes).await,
        SessionsCommand::Export {
            key,
            format,
            output,
        } => export(&store, key, *format, output.as_deref()).await,
    };
    store.close().await;
    result
}

async fn list(ctx: &Context, store: &Store, limit: u32, offset: u32) -> Result<(), CliError> {
    let sessions = store.list_sessions(limit, offset).await?;
    if ctx.json {
        return output::json(&sessions);
    }
    if sessions.is_empty() {
        outln!("No conversations yet. Start one with `lango chat` or in the desktop app.");
        return Ok(());
    }
    let width = sessions
        .iter()
        .map(|s| s.key.chars().count())
        .max()
        .unwrap_or(3)
        .max(3);
    outln!("{:<width$}  {:<16}  TITLE", "KEY", "UPDATED");
    for s in &sessions {
        let pin = if s.pinned { "📌 " } else { "" };
        let title = if s.title.is_empty() {
            "(untitled)"
        } else {
            s.title.as_str()
        };
        outln!(
            "{:<width$}  {:<16}  {pin}{title}",
            s.key,
            output::time(s.updated_at)
        );
    }
    Ok(())
}

async fn show(ctx: &Context, store: &Store, key: &str) -> Result<(), CliError> {
    if ctx.json {
        return output::json(&export::to_json(store, key).await?);
    }
    let session = store.get_session(key).await?;
    let messages = export::all_messages(store, key).await?;
    terminal::out(&export::render_markdown(&session, &messages));
    Ok(())
}

async fn delete(store: &Store, key: &str, yes: bool) -> Result<(), CliError> {
    store.get_session(key).await?; // a clear "not found" before asking anything
    if !yes
        && !output::confirm(
            &format!("Delete conversation {key} and its memory? This cannot be undone."),
            "delete",
        )?
    {
        outln!("kept {key}");
        return Ok(());
    }
    store.delete_session(key).await?;
    outln!("deleted {key}");
    Ok(())
}

async fn export(
    store: &Store,
    key: &str,
    format: ExportFormat,
    output: Option<&std::path::Path>,
) -> Result<(), CliError> {
    let text = match format {
        ExportFormat::Md => export::to_markdown(store, key).await?,
        ExportFormat::Json => serde_json::to_string_pretty(&export::to_json(store, key).await?)
            .map_err(|e| CliError::internal(e.to_string()))?,
    };
    match output {
        Some(path) => {
            std::fs::write(path, text.as_bytes()).map_err(|e| {
                CliError::new(Kind::Store, format!("cannot write {}: {e}", path.display()))
            })?;
            errln!("wrote {}", path.display());
        }
        // JSON keeps every character (escaped); Markdown is shown without control sequences.
        None if format == ExportFormat::Json => terminal::out_clean(&terminal::json_escaped(text)),
        None => terminal::out(&text),
    }
    Ok(())
}
