//! `lango sessions list|show|search|rename|pin|delete|export`.

use lango_core::export;
use lango_core::store::{SearchHitKind, Store, StoreError};

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
        // Writes only to index messages still queued for search; a folder Lango cannot
        // write is searched as it is (what is not indexed yet is counted).
        SessionsCommand::Search { .. } => match Store::open_app(&ctx.paths).await {
            Err(StoreError::ReadOnly { .. }) => Store::open_app_for_reading(&ctx.paths).await?,
            other => other?,
        },
        _ => Store::open_app(&ctx.paths).await?,
    };
    let result = match command {
        SessionsCommand::List { limit, offset } => list(ctx, &store, *limit, *offset).await,
        SessionsCommand::Show { key } => show(ctx, &store, key).await,
        SessionsCommand::Search {
            query,
            session,
            limit,
            offset,
        } => search(ctx, &store, query, session.as_deref(), *limit, *offset).await,
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

async fn search(
    ctx: &Context,
    store: &Store,
    query: &str,
    session: Option<&str>,
    limit: u32,
    offset: u32,
) -> Result<(), CliError> {
    // A one-shot command: the app's background indexing has no time to catch up here.
    // Nothing queued costs a read or two (an upgrade's re-indexing is queued first).
    if let Err(e) = store.index_pending_messages().await {
        tracing::warn!(error = %e, "messages queued for search not indexed");
    }
    let results = store
        .search_page(query, session, limit.clamp(1, 200), offset)
        .await?;
    if ctx.json {
        return output::json(&results);
    }
    if results.hits.is_empty() {
        outln!("No matches for {query:?}.");
    }
    for hit in &results.hits {
        let what = match (hit.kind, hit.archived) {
            (SearchHitKind::Message, false) => format!("#{}", hit.seq.unwrap_or_default()),
            (SearchHitKind::Message, true) => {
                format!("#{} (compacted)", hit.seq.unwrap_or_default())
            }
            (SearchHitKind::Observation, _) => "observation".to_owned(),
            (SearchHitKind::Reflection, _) => "reflection".to_owned(),
        };
        let title = if hit.session_title.is_empty() {
            "(untitled)"
        } else {
            hit.session_title.as_str()
        };
        outln!(
            "{}  {}  {what}  {title}",
            hit.session_key,
            output::time(hit.at)
        );
        outln!("    {}", hit.snippet);
    }
    let shown = u64::from(offset) + results.hits.len() as u64;
    let total = if results.total_is_lower_bound {
        format!("at least {}", results.total)
    } else {
        results.total.to_string()
    };
    if results.more {
        outln!("{shown} of {total} matches shown; more with --offset {shown}.");
    } else if !results.hits.is_empty() {
        outln!("{total} matches.");
    }
    if results.unindexed > 0 {
        outln!(
            "{} messages are not indexed yet and were not searched.",
            results.unindexed
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
    terminal::out(&export::render_markdown(
        &session,
        &messages,
        &export::Links::new(),
    ));
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
    let (text, files) = match (format, output) {
        // Written to a file: the attached files go in a folder beside it, linked.
        (ExportFormat::Md, Some(path)) => {
            let stem = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            export::to_markdown_with_files(store, key, &format!("{stem} files")).await?
        }
        (ExportFormat::Md, None) => (export::to_markdown(store, key).await?, Vec::new()),
        (ExportFormat::Json, _) => (
            serde_json::to_string_pretty(&export::to_json(store, key).await?)
                .map_err(|e| CliError::internal(e.to_string()))?,
            Vec::new(),
        ),
    };
    match output {
        Some(path) => {
            let cannot = |p: &std::path::Path, e: std::io::Error| {
                CliError::new(Kind::Store, format!("cannot write {}: {e}", p.display()))
            };
            let dir = path.parent().unwrap_or(std::path::Path::new("."));
            for file in &files {
                let at = file
                    .relative
                    .split('/')
                    .fold(dir.to_path_buf(), |p, part| p.join(part));
                if let Some(parent) = at.parent() {
                    std::fs::create_dir_all(parent).map_err(|e| cannot(parent, e))?;
                }
                std::fs::write(&at, &file.bytes).map_err(|e| cannot(&at, e))?;
            }
            std::fs::write(path, text.as_bytes()).map_err(|e| cannot(path, e))?;
            errln!("wrote {}", path.display());
            if !files.is_empty() {
                errln!("wrote {} attached file(s) beside it", files.len());
            }
        }
        // JSON keeps every character (escaped); Markdown is shown without control sequences.
        None if format == ExportFormat::Json => terminal::out_clean(&terminal::json_escaped(text)),
        None => terminal::out(&text),
    }
    Ok(())
}
