//! `lango doctor [backup | restore BACKUP | salvage]`: the database's health, its backups,
//! today's backup on demand, and the ways back from damage. The rules live in `lango_core::store::recovery`; this prints.

use lango_core::store::recovery::{self, Backup, Diagnosis, Health, Restored, SalvageReport};
use lango_core::store::Store;

use super::Context;
use crate::args::DoctorCommand;
use crate::exit::{CliError, Kind};
use crate::output;
use crate::terminal::outln;

pub async fn run(ctx: &Context, command: Option<&DoctorCommand>) -> Result<(), CliError> {
    match command {
        None => check(ctx).await,
        Some(DoctorCommand::Backup) => backup_now(ctx).await,
        Some(DoctorCommand::Restore { backup, yes }) => restore(ctx, backup, *yes).await,
        Some(DoctorCommand::Salvage { apply, yes }) => salvage(ctx, *apply, *yes).await,
    }
}

async fn check(ctx: &Context) -> Result<(), CliError> {
    let paths = ctx.paths.clone();
    let diagnosis = tokio::task::spawn_blocking(move || recovery::diagnose(&paths))
        .await
        .map_err(|e| CliError::internal(e.to_string()))?;
    if ctx.json {
        output::json(&diagnosis)?;
    } else {
        print_diagnosis(&diagnosis);
    }
    match &diagnosis.health {
        Health::Damaged { .. } => Err(CliError::new(
            Kind::Damaged,
            "the database is damaged; see above for what to do",
        )),
        Health::TooNew { .. } => Err(CliError::new(
            Kind::Damaged,
            "the database needs a newer Lango; see above",
        )),
        _ => Ok(()),
    }
}

/// Today's daily backup in the foreground: what `lango doctor backup` does.
async fn backup_now(ctx: &Context) -> Result<(), CliError> {
    let settings = lango_core::config::load(&ctx.paths)
        .map(|loaded| loaded.settings.backups)
        .unwrap_or_default();
    let (db, dir) = (ctx.paths.database_file(), ctx.paths.backups_dir());
    let today = chrono::Local::now().date_naive();
    let outcome = tokio::task::spawn_blocking(move || {
        recovery::daily_backup(&db, &dir, today, settings.keep)
    })
    .await
    .map_err(|e| CliError::internal(e.to_string()))?
    .map_err(|e| CliError::new(Kind::Internal, format!("the backup failed: {e}")))?;
    match outcome {
        recovery::DailyOutcome::Taken(path) => outln!("Backup taken: {}", path.display()),
        recovery::DailyOutcome::AlreadyToday => outln!("Today's backup is already there."),
        recovery::DailyOutcome::NoDatabase => outln!("No database yet: nothing to back up."),
        recovery::DailyOutcome::Damaged(why) => {
            return Err(CliError::new(
                Kind::Damaged,
                format!(
                    "not backed up: the database fails SQLite's check ({why}); run `lango doctor`"
                ),
            ))
        }
    }
    Ok(())
}

fn print_diagnosis(d: &Diagnosis) {
    outln!("Database: {} ({})", d.database.display(), size(d.size));
    outln!("  {}", state(&d.health));
    if d.backups.is_empty() {
        outln!("Backups: none yet in {}", d.backups_dir.display());
    } else {
        outln!("Backups in {} (newest first):", d.backups_dir.display());
        for b in &d.backups {
            outln!("  {}", backup_line(b));
        }
    }
    outln!();
    outln!("{}", advice(d));
}

fn state(health: &Health) -> String {
    match health {
        Health::Missing => "No database yet.".into(),
        Health::Healthy { schema_version } => format!("Healthy (schema version {schema_version})."),
        Health::Outdated { schema_version } => format!(
            "Healthy, from an older Lango (schema version {schema_version}); it is upgraded on the next start."
        ),
        Health::TooNew { schema_version } => format!(
            "Written by a newer Lango (schema version {schema_version}); this version cannot open it."
        ),
        Health::Damaged { detail } => format!("DAMAGED: {detail}"),
    }
}

fn backup_line(b: &Backup) -> String {
    let when = b
        .taken_at
        .map(|t| {
            t.with_timezone(&chrono::Local)
                .format("%Y-%m-%d %H:%M")
                .to_string()
        })
        .unwrap_or_else(|| "unknown time".into());
    let verdict = match &b.health {
        h if h.is_usable() => "ok".to_string(),
        Health::TooNew { .. } => "needs a newer Lango".to_string(),
        Health::Damaged { detail } => format!("damaged ({detail})"),
        _ => "unusable".to_string(),
    };
    format!("{}  {when}  {}  {verdict}", b.file_name, size(b.size))
}

/// What to do, in plain words, for the state found.
fn advice(d: &Diagnosis) -> String {
    let salvage =
        "`lango doctor salvage` copies what can still be read into a new file (the damaged \
                   one is not changed; add --apply to put it in place)";
    match (&d.health, d.best_backup()) {
        (Health::Missing, _) => "Nothing to do: Lango creates the database on its first start.".into(),
        (Health::Healthy { .. } | Health::Outdated { .. }, _) => "Nothing to do.".into(),
        (Health::TooNew { .. }, _) => {
            "Update Lango to open it. Or restore an older backup with `lango doctor restore <backup>` \
             (the current file is kept aside)."
                .into()
        }
        (Health::Damaged { .. }, Some(best)) => format!(
            "Close Lango (the app and other lango commands), then restore the newest good backup:\n  \
             lango doctor restore {}\nChanges made after it was taken are not in it; the damaged file \
             is kept aside as lango.db.damaged-<time>. Before that, {salvage}.",
            best.file_name
        ),
        (Health::Damaged { .. }, None) => format!(
            "There is no usable backup. Close Lango (the app and other lango commands); {salvage}."
        ),
    }
}

/// Swapping the file under the desktop app's open connections would damage it.
fn refuse_while_the_app_runs(ctx: &Context) -> Result<(), CliError> {
    if lango_core::instance::is_running(&ctx.paths.data_dir) {
        return Err(CliError::new(
            Kind::Store,
            "the Lango app is open on this data folder; close it first, then run this again",
        ));
    }
    Ok(())
}

async fn restore(ctx: &Context, name: &str, yes: bool) -> Result<(), CliError> {
    let backup = recovery::resolve_backup(&ctx.paths.backups_dir(), name)?;
    refuse_while_the_app_runs(ctx)?;
    let db = ctx.paths.database_file();
    if !yes
        && !output::confirm(
            &format!(
                "Replace {} with {}? The current file is kept aside as lango.db.damaged-<time>.",
                db.display(),
                backup.display()
            ),
            "restore",
        )?
    {
        outln!("nothing changed");
        return Ok(());
    }
    let restored = blocking(move || recovery::restore(&db, &backup)).await?;
    reopen(ctx).await?;
    report_restored(ctx, &restored)
}

async fn salvage(ctx: &Context, apply: bool, yes: bool) -> Result<(), CliError> {
    if apply {
        refuse_while_the_app_runs(ctx)?;
    }
    let db = ctx.paths.database_file();
    let report = recovery::salvage(&db, &ctx.paths.data_dir).await?;
    if ctx.json && !apply {
        return output::json(&report);
    }
    if !ctx.json {
        print_salvage(&report);
    }
    if !apply {
        outln!(
            "To use it: `lango doctor restore {}` (the damaged file is kept aside).",
            report.salvaged.display()
        );
        return Ok(());
    }
    if !yes
        && !output::confirm(
            &format!(
                "Replace {} with the salvaged file? The current file is kept aside as lango.db.damaged-<time>.",
                db.display()
            ),
            "put the salvaged file in place",
        )?
    {
        outln!("nothing changed; the salvaged file stays at {}", report.salvaged.display());
        return Ok(());
    }
    let from = report.salvaged.clone();
    let restored = blocking(move || recovery::restore(&db, &from)).await?;
    reopen(ctx).await?;
    if ctx.json {
        return output::json(&serde_json::json!({ "salvage": report, "restored": restored }));
    }
    report_restored(ctx, &restored)
}

fn print_salvage(report: &SalvageReport) {
    outln!("Salvaged into {}", report.salvaged.display());
    outln!(
        "(the damaged file {} was not changed)",
        report.source.display()
    );
    for t in &report.tables {
        outln!("  {:<18} {:>8} saved  {:>8} lost", t.table, t.saved, t.lost);
    }
}

fn report_restored(ctx: &Context, restored: &Restored) -> Result<(), CliError> {
    if ctx.json {
        return output::json(restored);
    }
    outln!(
        "Restored {} from {}.",
        ctx.paths.database_file().display(),
        restored.restored_from.display()
    );
    match &restored.set_aside {
        Some(aside) => outln!("The previous file is kept as {}.", aside.display()),
        None => outln!("There was no previous file."),
    }
    Ok(())
}

/// The restored file must open as Lango opens it (upgrading it when it is older).
async fn reopen(ctx: &Context) -> Result<(), CliError> {
    let store = Store::open_app(&ctx.paths).await?;
    store.close().await;
    Ok(())
}

async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, recovery::RecoveryError> + Send + 'static,
) -> Result<T, CliError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| CliError::internal(e.to_string()))?
        .map_err(CliError::from)
}

fn size(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 20 => format!("{:.1} MB", b as f64 / (1u64 << 20) as f64),
        b if b >= 1 << 10 => format!("{:.1} KB", b as f64 / 1024.0),
        b => format!("{b} bytes"),
    }
}
