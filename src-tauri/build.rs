//! Build script: lets `tauri-build` read `tauri.conf.json` (a symlink to the top-level file,
//! BUILD-NOTES §3 layout C), generate the capability schemas and embed the icons.
fn main() {
    tauri_build::build()
}
