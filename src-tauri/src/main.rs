//! Entry point of the `lango-desktop` binary. Owns only process-level setup that must happen
//! before any GTK/WebKit code runs; everything else lives in `lango_desktop_lib`.

// Release builds on Windows must not open a console window next to the app.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() {
    lango_core::allocator::limit_arenas();
    // WebKitGTK's DMA-BUF renderer shows a blank white window on many Linux setups (NVIDIA,
    // some VMs, Xvfb); Jan and other Tauri apps hit the same bug. Turn it off unless the user
    // chose a value themselves. This must run before the first GTK/WebKit call.
    #[cfg(target_os = "linux")]
    if std::env::var_os("WEBKIT_DISABLE_DMABUF_RENDERER").is_none() {
        std::env::set_var("WEBKIT_DISABLE_DMABUF_RENDERER", "1");
    }

    lango_desktop_lib::run();
}
