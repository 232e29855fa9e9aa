//! Recovery when the database cannot be opened: the diagnosis, restoring a backup,
//! salvaging, opening the data folder. One-line calls into `lango_core::app::recovery`,
//! which needs no open app. Refused while the app has the database open: swapping the file
//! under open connections would damage it.

use lango_core::app::recovery::{self, Salvaged};
use lango_core::app::AppError;
use lango_core::paths::AppPaths;
use lango_core::store::recovery::{Diagnosis, Restored};
use tauri::{AppHandle, State};

use crate::state::AppState;

#[tauri::command]
pub async fn recovery_diagnose() -> Result<Diagnosis, AppError> {
    recovery::diagnose(&paths()?).await
}

#[tauri::command]
pub async fn recovery_restore(
    handle: AppHandle,
    state: State<'_, AppState>,
    backup: String,
) -> Result<Restored, AppError> {
    refuse_while_open(&state)?;
    let restored = recovery::restore_backup(&paths()?, &backup).await?;
    reopen(handle, &state)?;
    Ok(restored)
}

#[tauri::command]
pub async fn recovery_salvage(
    handle: AppHandle,
    state: State<'_, AppState>,
    apply: bool,
) -> Result<Salvaged, AppError> {
    refuse_while_open(&state)?;
    let salvaged = recovery::salvage(&paths()?, apply).await?;
    if apply {
        reopen(handle, &state)?;
    }
    Ok(salvaged)
}

/// Shows the data folder (database, backups, the damaged copies) in the file manager.
#[tauri::command]
pub async fn open_data_folder() -> Result<(), AppError> {
    let dir = paths()?.data_dir;
    crate::opener::open(dir.as_os_str()).map_err(|e| {
        AppError::new(
            "open_folder",
            format!("could not open {}: {e}", dir.display()),
        )
    })
}

fn paths() -> Result<AppPaths, AppError> {
    Ok(AppPaths::resolve(None)?)
}

fn refuse_while_open(state: &AppState) -> Result<(), AppError> {
    match state.get() {
        Some(Err(_)) => Ok(()),
        _ => Err(AppError::new(
            "database_open",
            "the database is open and works; recovery is for when it cannot be opened (use `lango doctor` with Lango closed)",
        )),
    }
}

/// Opens the app again on the restored file; commands wait meanwhile.
fn reopen(handle: AppHandle, state: &AppState) -> Result<(), AppError> {
    state.clear();
    tauri::async_runtime::spawn(crate::open_app(
        handle,
        paths()?,
        std::time::Instant::now(),
        None,
    ));
    Ok(())
}
