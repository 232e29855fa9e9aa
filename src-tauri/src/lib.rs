//! Lango's desktop shell. Owns the Tauri application: process set-up (logging, one instance
//! per data folder), the window (from `tauri.conf.json`, shown once its page has mounted
//! its shell: `reveal`), the commands the UI may invoke,
//! forwarding the memory's events to the window, and a graceful shutdown. It holds no chat
//! logic of its own: commands are thin adapters over `lango_core::app::App`.

pub mod boot;
pub mod commands;
pub mod error;
mod logging;
// Compiled on every OS so Linux builds type-check it; used on macOS only.
#[cfg_attr(not(target_os = "macos"), allow(dead_code))]
mod menu;
mod opener;
pub mod reveal;
pub mod state;

use lango_core::app::App;
use lango_core::instance::{self, Instance};
use lango_core::paths::AppPaths;
use std::sync::Arc;

use tauri::{Emitter, Manager, RunEvent};

pub use error::AppError;
use state::AppState;

/// Builds and runs the Tauri application. Returns when the app quits.
pub fn run() {
    // Start-up timings go to the log: a slow start is then diagnosable on a user's machine.
    let started = std::time::Instant::now();
    let paths = match AppPaths::resolve(None) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("lango: {e}");
            std::process::exit(2);
        }
    };
    let log_file = logging::init(&paths.log_dir);
    let primary = match instance::acquire(&paths.data_dir) {
        Ok(Instance::Primary(p)) => Some(p),
        Ok(Instance::Secondary) => {
            tracing::info!(
                "Lango is already running for {}; showed its window",
                paths.data_dir.display()
            );
            return;
        }
        Err(e) => {
            // Better two windows than none: say so and go on.
            tracing::warn!("single-instance lock unavailable: {e}");
            None
        }
    };
    tracing::info!(data_dir = %paths.data_dir.display(), log = ?log_file, "starting Lango {}", env!("CARGO_PKG_VERSION"));

    // The first status goes out with the page (boot.rs): no round trip before the window is usable.
    let boot = Arc::new(boot::Boot::default());
    let mut context = tauri::generate_context!();
    boot::serve_with_status(&mut context, Arc::clone(&boot));

    let builder = tauri::Builder::default();
    #[cfg(target_os = "macos")]
    let builder = builder.menu(menu::build).on_menu_event(menu::on_event);
    let app = builder
        .manage(AppState::default())
        .setup(move |app| {
            tracing::info!(
                elapsed_ms = started.elapsed().as_millis() as u64,
                "window set up"
            );
            let handle = app.handle().clone();
            if let Some(primary) = primary {
                let ping_handle = handle.clone();
                primary.on_ping(move || {
                    if let Some(window) = ping_handle.get_webview_window(reveal::MAIN_WINDOW) {
                        let _ = window.unminimize();
                        let _ = window.show();
                        let _ = window.set_focus();
                    }
                });
            }
            tauri::async_runtime::spawn(reveal::fallback(handle.clone()));
            tauri::async_runtime::spawn(quit_on_signals(handle.clone()));
            tauri::async_runtime::spawn(open_app(handle, paths.clone(), started, Some(boot)));
            Ok(())
        })
        .on_page_load(reveal::on_page_load)
        .invoke_handler(tauri::generate_handler![
            commands::status::app_status,
            commands::status::storage_usage,
            commands::sessions::list_sessions,
            commands::sessions::create_session,
            commands::sessions::rename_session,
            commands::sessions::pin_session,
            commands::sessions::delete_session,
            commands::sessions::search,
            commands::sessions::page_messages,
            commands::sessions::tool_result,
            commands::sessions::save_tool_result,
            commands::sessions::export_session,
            commands::import::import_conversations,
            commands::import::cancel_import,
            commands::import::estimate_import_memory,
            commands::import::build_import_memory,
            commands::import::cancel_import_memory,
            commands::chat::send_message,
            commands::chat::regenerate,
            commands::attachments::prepare_attachment,
            commands::attachments::prepare_attachment_path,
            commands::attachments::attachment_image,
            commands::conversation::conversation_settings,
            commands::conversation::set_conversation_settings,
            commands::conversation::list_models_of,
            commands::chat::edit_last,
            commands::chat::stop_turn,
            commands::memory::memory_overview,
            commands::memory::memory_sources,
            commands::memory::update_memory_item,
            commands::memory::delete_memory_item,
            commands::memory::inspect,
            commands::settings::get_settings,
            commands::settings::get_settings_document,
            commands::settings::validate_settings,
            commands::settings::save_settings,
            commands::settings::set_api_key,
            commands::settings::delete_api_key,
            commands::settings::test_connection,
            commands::settings::list_models,
            commands::settings::set_model,
            commands::tools::approve_tool_call,
            commands::tools::mcp_servers,
            commands::tools::mcp_restart,
            commands::tools::mcp_set_tool_policy,
            commands::recovery::recovery_diagnose,
            commands::recovery::recovery_restore,
            commands::recovery::recovery_salvage,
            commands::recovery::open_data_folder,
            commands::sessions::show_export,
            commands::sessions::find_in_session,
            commands::updates::check_for_updates,
            commands::updates::open_release_page,
            reveal::shell_mounted,
        ])
        .build(context);
    let app = match app {
        Ok(app) => app,
        Err(e) => {
            tracing::error!("Lango could not start its window: {e}");
            eprintln!("lango: could not start the window: {e}");
            std::process::exit(1);
        }
    };
    app.run(|handle, event| {
        if let RunEvent::Exit = event {
            // Finish the memory cycle in progress and close the database cleanly.
            if let Some(Ok(app)) = handle.state::<AppState>().get() {
                let app = app.clone();
                tauri::async_runtime::block_on(async move { app.shutdown().await });
            }
            tracing::info!("Lango stopped");
        }
    });
}

/// SIGTERM (the session logging out, `kill`) and SIGHUP quit like closing the window: the
/// reply being written is stopped and kept, marked interrupted, and the database closed.
async fn quit_on_signals(handle: tauri::AppHandle) {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let (Ok(mut term), Ok(mut hup)) = (
            signal(SignalKind::terminate()),
            signal(SignalKind::hangup()),
        ) else {
            tracing::warn!(
                "cannot listen for SIGTERM/SIGHUP; they will end Lango without a clean shutdown"
            );
            return;
        };
        tokio::select! {
            _ = term.recv() => tracing::info!("SIGTERM: quitting"),
            _ = hup.recv() => tracing::info!("SIGHUP: quitting"),
        }
        handle.exit(0);
    }
    #[cfg(not(unix))]
    let _ = handle;
}

/// Opens the engine, hands its first status to `boot` (the page being served), then
/// forwards its memory events to the window as `memory` events. Also run again after a
/// recovery put another database file in place (no `boot` then).
pub(crate) async fn open_app(
    handle: tauri::AppHandle,
    paths: AppPaths,
    started: std::time::Instant,
    boot: Option<Arc<boot::Boot>>,
) {
    let opened = App::open(paths).await;
    tracing::info!(
        elapsed_ms = started.elapsed().as_millis() as u64,
        "data opened"
    );
    if let Err(e) = &opened {
        tracing::error!("the app could not open its data: {e}");
    }
    if let Some(boot) = boot {
        let status = match &opened {
            Ok(app) => serde_json::to_string(&app.status().await).ok(),
            Err(_) => None,
        };
        boot.set(status);
    }
    let events = opened.as_ref().ok().map(App::subscribe_memory);
    handle.state::<AppState>().set(opened);
    let Some(mut events) = events else { return };
    loop {
        match events.recv().await {
            Ok(event) => {
                let _ = handle.emit("memory", &event);
            }
            Err(tokio::sync::broadcast::error::RecvError::Lagged(n)) => {
                tracing::debug!("{n} memory events skipped (the window was busy)");
            }
            Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
        }
    }
}
