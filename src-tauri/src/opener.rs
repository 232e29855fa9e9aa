//! Handing a folder or a web address to the desktop's own opener (file manager, browser):
//! `open` on macOS, `explorer` on Windows, `xdg-open` elsewhere. No shell is involved (the
//! target is one argument), and nothing the webview sends is opened without the caller
//! checking it first — which is why this is a Rust function and not an opener plugin
//! permission granted to the webview.

use std::ffi::OsStr;

/// Starts the system opener on `target` without waiting for it.
pub fn open(target: &OsStr) -> std::io::Result<()> {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else if cfg!(windows) {
        "explorer"
    } else {
        "xdg-open"
    };
    std::process::Command::new(opener)
        .arg(target)
        .spawn()
        .map(|_| ())
}
