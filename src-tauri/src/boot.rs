//! The first status, delivered with the page: `index.html` is served with the backend's
//! status (what the window needs to be usable: version, whether chat works, the theme) in a
//! JSON block, so the UI renders it at once instead of asking the backend and waiting for the
//! answer while the web process is busy with its first layout (~0.1–0.2 s at a cold start).
//!
//! The data usually opens well before WebKit asks for the page (~0.3 s vs ~0.5 s after the
//! process start); when it has not, the page waits for it at most [`BOOT_WAIT`], then goes
//! without (the UI asks, as before). A block serves one page load only: a later load (a
//! reload after a recovery) asks the backend for the current status.

use std::borrow::Cow;
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::Duration;

use tauri::utils::assets::{AssetKey, AssetsIter, CspHash};
use tauri::{Assets, Runtime};

/// How long serving the page waits for the data to open (release builds open it ~0.2 s
/// before WebKit asks for the page; a keychain that is slow to answer must not keep the
/// window blank). `LANGO_BOOT_WAIT_MS` replaces it: the end-to-end tests run a debug build
/// on a busy machine, where opening the data can take over a second.
pub const BOOT_WAIT: Duration = Duration::from_millis(300);

/// [`BOOT_WAIT`], or `LANGO_BOOT_WAIT_MS` when set to a number.
pub fn boot_wait() -> Duration {
    std::env::var("LANGO_BOOT_WAIT_MS")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .map_or(BOOT_WAIT, Duration::from_millis)
}

/// The `id` of the JSON block; `ui/src/lib/api/boot.ts` reads it.
pub const BOOT_ELEMENT_ID: &str = "lango-boot";

#[derive(Debug, Default)]
enum Slot {
    /// The data is still opening.
    #[default]
    Pending,
    /// The status as JSON; None: nothing to deliver (the open failed: the UI asks and gets
    /// the error, which shows the recovery screen).
    Ready(Option<String>),
    /// Delivered once, or given up waiting for.
    Taken,
}

/// The status waiting for the page, shared by the data's opening and the asset server.
#[derive(Debug, Default)]
pub struct Boot {
    slot: Mutex<Slot>,
    changed: Condvar,
}

impl Boot {
    /// The status to deliver (None: nothing). Ignored once the page was served.
    pub fn set(&self, status_json: Option<String>) {
        let mut slot = self.slot.lock().unwrap_or_else(PoisonError::into_inner);
        if matches!(*slot, Slot::Pending) {
            *slot = Slot::Ready(status_json);
            self.changed.notify_all();
        }
    }

    /// The status for this page load, waiting at most `wait` for it; at most once.
    pub fn take(&self, wait: Duration) -> Option<String> {
        let slot = self.slot.lock().unwrap_or_else(PoisonError::into_inner);
        let (mut slot, _) = self
            .changed
            .wait_timeout_while(slot, wait, |s| matches!(s, Slot::Pending))
            .unwrap_or_else(PoisonError::into_inner);
        match std::mem::replace(&mut *slot, Slot::Taken) {
            Slot::Ready(json) => json,
            Slot::Pending | Slot::Taken => None,
        }
    }
}

/// `html` with `status_json` in a `<script type="application/json">` block at the end of its
/// head (a data block: never executed, so the CSP's `script-src` does not apply). `<` is
/// escaped, so no value can close the block.
pub fn inject(html: &str, status_json: &str) -> String {
    let block = format!(
        "<script id=\"{BOOT_ELEMENT_ID}\" type=\"application/json\">{}</script>",
        status_json.replace('<', "\\u003c")
    );
    match html.find("</head>") {
        Some(at) => format!("{}{block}{}", &html[..at], &html[at..]),
        None => format!("{block}{html}"),
    }
}

/// Makes `context` serve its `index.html` with the status `boot` receives.
pub fn serve_with_status<R: Runtime>(context: &mut tauri::Context<R>, boot: Arc<Boot>) {
    let inner = context.set_assets(Box::new(NoAssets));
    context.set_assets(Box::new(BootAssets {
        inner,
        boot,
        wait: boot_wait(),
    }));
}

/// The app's assets, with the status injected into `index.html` (see the module doc).
struct BootAssets<R: Runtime> {
    inner: Box<dyn Assets<R>>,
    boot: Arc<Boot>,
    wait: Duration,
}

/// Holds the place of the assets while they are wrapped.
struct NoAssets;

impl<R: Runtime> Assets<R> for NoAssets {
    fn get(&self, _key: &AssetKey) -> Option<Cow<'_, [u8]>> {
        None
    }

    fn iter(&self) -> Box<AssetsIter<'_>> {
        Box::new(std::iter::empty())
    }

    fn csp_hashes(&self, _html_path: &AssetKey) -> Box<dyn Iterator<Item = CspHash<'_>> + '_> {
        Box::new(std::iter::empty())
    }
}

impl<R: Runtime> Assets<R> for BootAssets<R> {
    fn get(&self, key: &AssetKey) -> Option<Cow<'_, [u8]>> {
        let asset = self.inner.get(key)?;
        if key.as_ref() != "/index.html" {
            return Some(asset);
        }
        // Tauri serves assets from a task of its multi-threaded runtime: waiting there must
        // not hold a worker the data's opening may need.
        let wait = || self.boot.take(self.wait);
        let status = match tokio::runtime::Handle::try_current().map(|h| h.runtime_flavor()) {
            Ok(tokio::runtime::RuntimeFlavor::MultiThread) => tokio::task::block_in_place(wait),
            Ok(_) => self.boot.take(Duration::ZERO),
            Err(_) => wait(),
        };
        let Some(status) = status else {
            tracing::info!("page served without the status (the data was not open yet)");
            return Some(asset);
        };
        tracing::info!("page served with the status");
        let Ok(html) = std::str::from_utf8(&asset) else {
            return Some(asset);
        };
        Some(Cow::Owned(inject(html, &status).into_bytes()))
    }

    fn iter(&self) -> Box<AssetsIter<'_>> {
        self.inner.iter()
    }

    fn csp_hashes(&self, html_path: &AssetKey) -> Box<dyn Iterator<Item = CspHash<'_>> + '_> {
        self.inner.csp_hashes(html_path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_status_block_ends_the_head_and_no_value_can_close_it() {
        let html = "<html><head><title>Lango</title></head><body></body></html>";
        let out = inject(html, r#"{"version":"</script><script>alert(1)</script>"}"#);
        assert_eq!(out.matches("</script>").count(), 1, "{out}");
        let start = out.find("<script id=\"lango-boot\"").expect("block");
        assert!(start < out.find("</head>").unwrap());
        assert!(out.contains(r#"{"version":"\u003c/script>\u003cscript>alert(1)\u003c/script>"}"#));
    }

    #[test]
    fn the_status_is_delivered_to_one_page_load_only() {
        let boot = Boot::default();
        boot.set(Some("{}".into()));
        assert_eq!(boot.take(Duration::ZERO).as_deref(), Some("{}"));
        assert_eq!(boot.take(Duration::ZERO), None, "a reload asks the backend");
        boot.set(Some("{\"late\":1}".into()));
        assert_eq!(boot.take(Duration::ZERO), None);
    }

    #[test]
    fn a_page_asked_for_before_the_data_opened_waits_for_it_briefly() {
        let boot = Arc::new(Boot::default());
        let setter = Arc::clone(&boot);
        let t = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(20));
            setter.set(Some("{\"ready\":true}".into()));
        });
        assert_eq!(
            boot.take(Duration::from_secs(5)).as_deref(),
            Some("{\"ready\":true}")
        );
        t.join().unwrap();
    }

    #[test]
    fn a_page_goes_without_the_status_when_the_data_is_slow_to_open() {
        let boot = Boot::default();
        assert_eq!(boot.take(Duration::from_millis(10)), None);
        boot.set(Some("{}".into()));
        assert_eq!(boot.take(Duration::ZERO), None, "given up: the UI asked");
    }
}
