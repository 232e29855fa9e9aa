//! The floor `make perf` compares Lango against: a Tauri window built from the same crates,
//! features and `tauri.conf.json` (window size, CSP, identifier) as `lango-desktop`, serving
//! one empty page through the same `tauri://` protocol — no engine, no commands, no bundle.
//! What it costs to start and to keep idle is what WebKitGTK and Tauri cost on this machine.
//!
//! `--page <file>` serves that file instead, in a window shown as Lango's is (once its page
//! has loaded, `lango_desktop_lib::reveal`): `make perf` gives it Lango's first screen saved
//! as static HTML without its scripts, to measure what WebKit alone takes to show that screen.
//!
//! Built by scripts/perf-desktop.sh:
//! `cargo build --release -p lango-desktop --features tauri/custom-protocol --example blank_window`.

use std::borrow::Cow;

use lango_desktop_lib::reveal;
use tauri::utils::assets::{AssetKey, AssetsIter, CspHash};
use tauri::{Assets, Runtime};

/// The page: one element with the id `make perf` waits for in Lango (`#app-version`), so both
/// windows are "interactive" by the same test.
const PAGE: &str =
    "<!doctype html><html lang=\"en\"><head><meta charset=\"UTF-8\"><title>Blank</title></head>\
<body><span id=\"app-version\">blank</span></body></html>";

/// Serves one page for every path: [`PAGE`], or the file given with `--page`.
struct OnePage(Cow<'static, [u8]>);

impl<R: Runtime> Assets<R> for OnePage {
    fn get(&self, _key: &AssetKey) -> Option<Cow<'_, [u8]>> {
        Some(Cow::Borrowed(&self.0))
    }

    fn iter(&self) -> Box<AssetsIter<'_>> {
        Box::new(std::iter::once((
            Cow::Borrowed("/index.html"),
            Cow::Borrowed(&self.0[..]),
        )))
    }

    fn csp_hashes(&self, _html_path: &AssetKey) -> Box<dyn Iterator<Item = CspHash<'_>> + '_> {
        Box::new(std::iter::empty())
    }
}

fn main() {
    // As lango-desktop's main does (its DMA-BUF workaround changes what WebKit loads).
    #[cfg(target_os = "linux")]
    if std::env::var_os("WEBKIT_DISABLE_DMABUF_RENDERER").is_none() {
        std::env::set_var("WEBKIT_DISABLE_DMABUF_RENDERER", "1");
    }
    let page = match page_from_args() {
        Ok(page) => page,
        Err(e) => {
            eprintln!("blank_window: {e}");
            std::process::exit(2);
        }
    };
    let mut context = tauri::generate_context!();
    let mut builder = tauri::Builder::default();
    match page {
        // `tauri.conf.json` creates the window hidden (Lango shows it once its page has
        // loaded); the floor is a default Tauri window, created visible.
        None => {
            for window in &mut context.config_mut().app.windows {
                window.visible = true;
            }
        }
        // Lango's first screen is shown as Lango shows it (created visible, a window stalls
        // for 500 ms in ~1 start in 5: `reveal`'s module doc).
        Some(_) => builder = builder.on_page_load(reveal::on_page_load),
    }
    let page = page.map_or(Cow::Borrowed(PAGE.as_bytes()), Cow::Owned);
    context.set_assets(Box::new(OnePage(page)));
    if let Err(e) = builder.run(context) {
        eprintln!("blank_window: {e}");
        std::process::exit(1);
    }
}

/// The bytes of the file named by `--page <file>`, if given.
fn page_from_args() -> Result<Option<Vec<u8>>, String> {
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--page" {
            let path = args.next().ok_or("--page needs a file")?;
            return std::fs::read(&path)
                .map(Some)
                .map_err(|e| format!("cannot read {path}: {e}"));
        }
    }
    Ok(None)
}
