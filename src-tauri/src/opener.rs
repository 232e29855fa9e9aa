//! Handing a folder or a web address to the desktop's own opener (file manager, browser):
//! `open` on macOS, `explorer` on Windows, `xdg-open` elsewhere; and showing a file in its
//! folder (selected where the file manager can do that). No shell is involved (the
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

/// Shows `file` in the file manager: selected on macOS (`open -R`) and Windows
/// (`explorer /select,`); elsewhere its folder opens (`xdg-open` cannot select a file).
pub fn reveal(file: &std::path::Path) -> std::io::Result<()> {
    if cfg!(target_os = "macos") {
        std::process::Command::new("open")
            .arg("-R")
            .arg(file)
            .spawn()
            .map(|_| ())
    } else if cfg!(windows) {
        let mut select = std::ffi::OsString::from("/select,");
        select.push(file.as_os_str());
        std::process::Command::new("explorer")
            .arg(select)
            .spawn()
            .map(|_| ())
    } else {
        let folder = file.parent().unwrap_or(file);
        open(folder.as_os_str())
    }
}
