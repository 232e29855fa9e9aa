//! When the window appears: once its page is running, not before (`tauri.conf.json` creates
//! it hidden).
//!
//! Shown at once, WebKitGTK draws the empty webview while its web process is still
//! starting, and that first draw waits for the web process, up to 500 ms, while the web
//! process waits for an answer from this process: in ~1 start in 5 on the measuring machine
//! the window sat frozen for half a second (WebKitGTK 2.50; seen with `gdb` on both
//! processes: this process in the webview's draw handler, in a timed wait; the web process's
//! main thread waiting for a reply).
//!
//! In practice the window is shown by [`on_page_load`]: WebKitGTK reports the load as
//! finished once the document itself has arrived — ~20–30 ms after navigation, before the
//! start-up bundle runs, not at the page's `load` event (timed with the GTK window's `map`
//! signal against the page's marks, stop 44). The web process is running the page by then,
//! and the page turns visible, and paints, as soon as its main thread is free of the bundle,
//! the mount and the first style. [`shell_mounted`] (asked by `ui/src/main.ts` right after
//! mounting) shows a window not shown yet, and [`fallback`] one whose page never loads.

use std::time::Duration;

use tauri::webview::{PageLoadEvent, PageLoadPayload};
use tauri::{AppHandle, Manager, Runtime, Webview};

/// The label of the window `tauri.conf.json` creates.
pub const MAIN_WINDOW: &str = "main";

/// The window is shown after this long even if its page has not finished loading: a blank
/// window is better than none.
pub const REVEAL_FALLBACK: Duration = Duration::from_secs(3);

/// Whether a page-load event is the moment to show the window.
pub fn reveals(event: PageLoadEvent) -> bool {
    matches!(event, PageLoadEvent::Finished)
}

/// The page-load hook: shows the window once WebKitGTK says the page finished loading (the
/// document arrived; see the module doc).
pub fn on_page_load<R: Runtime>(webview: &Webview<R>, payload: &PageLoadPayload<'_>) {
    if reveals(payload.event()) {
        shown(webview.window().show());
    }
}

/// The page's word that its shell is in the DOM (`ui/src/main.ts`, right after mounting): the
/// window is shown then if the page-load hook has not shown it. The web process is running the
/// page by then, not starting.
#[tauri::command]
pub fn shell_mounted<R: Runtime>(window: tauri::WebviewWindow<R>) {
    shown(window.show());
}

/// Shows the main window after [`REVEAL_FALLBACK`] if its page has not done so.
pub async fn fallback<R: Runtime>(handle: AppHandle<R>) {
    tokio::time::sleep(REVEAL_FALLBACK).await;
    let Some(window) = handle.get_webview_window(MAIN_WINDOW) else {
        return;
    };
    if !window.is_visible().unwrap_or(true) {
        tracing::warn!(
            "the page had not loaded after {REVEAL_FALLBACK:?}: showing the window anyway"
        );
        shown(window.show());
    }
}

fn shown(result: tauri::Result<()>) {
    if let Err(e) = result {
        tracing::warn!("could not show the window: {e}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_appears_when_its_page_has_loaded_not_when_it_starts() {
        assert!(reveals(PageLoadEvent::Finished));
        assert!(!reveals(PageLoadEvent::Started));
    }
}
