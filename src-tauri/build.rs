//! Build script: lets `tauri-build` read `tauri.conf.json` (a symlink to the top-level file,
//! BUILD-NOTES §3 layout C), generate the capability schemas and embed the icons; and has the
//! release link place the code a start runs side by side (`startup-order.txt`).
use std::env;
use std::path::Path;
use std::process::Command;

fn main() {
    order_startup_code();
    tauri_build::build()
}

/// Release builds for x86-64 Linux link with rust-lld (Rust ≥ 1.90's default there), which
/// can place functions in the order a file names them: the ~2,300 functions a start runs
/// (`startup-order.txt`, made by `scripts/startup-order.sh`) then sit together in ~3 MB of
/// the binary instead of being spread over ~10 MB, which the kernel maps in 64 KB blocks
/// around every page touched and keeps resident for as long as the app is open. Names a
/// later build no longer has are skipped. Other targets, debug builds, a linker chosen
/// through RUSTFLAGS, or `LANGO_NO_STARTUP_ORDER` set: the default layout.
fn order_startup_code() {
    println!("cargo:rerun-if-changed=startup-order.txt");
    println!("cargo:rerun-if-env-changed=LANGO_NO_STARTUP_ORDER");
    let target = env::var("TARGET").unwrap_or_default();
    let release = env::var("PROFILE").is_ok_and(|p| p == "release");
    let own_linker = env::var("CARGO_ENCODED_RUSTFLAGS")
        .is_ok_and(|f| f.contains("fuse-ld") || f.contains("linker"));
    if target != "x86_64-unknown-linux-gnu"
        || !release
        || own_linker
        || env::var_os("LANGO_NO_STARTUP_ORDER").is_some()
        || !rustc_links_with_lld()
    {
        return;
    }
    let Ok(dir) = env::var("CARGO_MANIFEST_DIR") else {
        return;
    };
    let order = Path::new(&dir).join("startup-order.txt");
    if !order.is_file() {
        return;
    }
    println!(
        "cargo:rustc-link-arg-bin=lango-desktop=-Wl,--symbol-ordering-file={}",
        order.display()
    );
    println!("cargo:rustc-link-arg-bin=lango-desktop=-Wl,--no-warn-symbol-ordering");
}

/// Whether the compiler is Rust 1.90 or later, which links x86-64 Linux programs with its own
/// lld (older ones use the system's `ld`, which knows no ordering file).
fn rustc_links_with_lld() -> bool {
    let rustc = env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let Ok(out) = Command::new(rustc).arg("--version").output() else {
        return false;
    };
    let version = String::from_utf8_lossy(&out.stdout);
    // "rustc 1.95.0 (59807616e 2026-04-14)"
    let mut parts = version
        .split_whitespace()
        .nth(1)
        .unwrap_or_default()
        .split('.')
        .map(|p| p.parse::<u32>().unwrap_or(0));
    let (major, minor) = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    (major, minor) >= (1, 90)
}
