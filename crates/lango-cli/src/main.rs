//! `lango`: Lango's engine without a window — sessions, settings and keys from a terminal.
//!
//! Owns argument parsing, output formatting and exit codes. All behaviour lives in
//! `lango-core`; this binary must not implement any (it only calls in and prints).

mod args;
mod backup;
mod commands;
mod exit;
mod input;
mod output;
mod signals;
mod terminal;

use std::process::ExitCode;

use clap::Parser;

use crate::args::{Cli, Command};

fn main() -> ExitCode {
    lango_core::allocator::limit_arenas();
    let cli = Cli::parse(); // usage errors exit with 2 (clap's default)
    init_logging();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            return exit::report(&exit::CliError::internal(format!(
                "cannot start the async runtime: {e}"
            )))
        }
    };
    let mut daily_backup = None;
    let result = runtime.block_on(async {
        let ctx = commands::Context::new(&cli)?;
        if !matches!(cli.command, Command::Doctor { .. } | Command::Update { .. }) {
            // In the background while the command runs (doctor works on the file itself;
            // an update check does not touch the data).
            let backups = lango_core::config::load(&ctx.paths)
                .map(|loaded| loaded.settings.backups)
                .unwrap_or_default();
            if backup::fits_in_the_wait(&ctx.paths.database_file()) {
                daily_backup =
                    lango_core::store::recovery::spawn_daily_backup(
                        &ctx.paths,
                        &backups,
                        std::time::Duration::ZERO,
                    );
            } else if backups.daily {
                tracing::info!(
                    "today's backup of this large database is left to the desktop app or `lango doctor backup`"
                );
            }
        }
        match &cli.command {
            Command::Config { command } => commands::config::run(&ctx, command).await,
            Command::Chat {
                session,
                new,
                no_stream,
                approve,
                provider,
                model,
                attach,
                message,
            } => {
                let options = commands::chat::Options {
                    session: session.clone(),
                    new: *new,
                    stream: !*no_stream,
                    approve: *approve,
                    provider: provider.clone(),
                    model: model.clone(),
                    attach: attach.clone(),
                    message: message.clone(),
                };
                commands::chat::run(&ctx, options).await
            }
            Command::Memory { command } => commands::memory::run(&ctx, command).await,
            Command::Sessions { command } => commands::sessions::run(&ctx, command).await,
            Command::Mcp { command } => commands::mcp::run(&ctx, command).await,
            Command::Doctor { command } => commands::doctor::run(&ctx, command.as_ref()).await,
            Command::Update { command } => commands::update::run(&ctx, command).await,
            Command::Import {
                file,
                build_memory,
                yes,
            } => commands::import::run(&ctx, file, *build_memory, *yes).await,
        }
    });
    // A read of piped input a signal gave up on may still block its thread: do not wait for it.
    runtime.shutdown_background();
    // A command quicker than today's backup gives it a few seconds to finish, not more; a
    // signal that stopped the command ends it at once.
    let stopped = matches!(&result, Err(e) if matches!(
        e.kind,
        exit::Kind::Interrupted | exit::Kind::Terminated | exit::Kind::HungUp
    ));
    if let (Some(backup), false) = (daily_backup, stopped) {
        backup.wait(std::time::Duration::from_secs(5));
    }
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => exit::report(&e),
    }
}

/// Logs go to stderr, warnings and above unless `LANGO_LOG` says otherwise, so stdout stays
/// clean for `--json` consumers. Sanitised like all output, so plain (no colours).
fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_env("LANGO_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(false)
        .with_writer(|| terminal::LogWriter)
        .try_init();
}
