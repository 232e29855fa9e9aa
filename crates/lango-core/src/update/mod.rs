//! The update check: is a newer Lango published in the release feed the user configured?
//!
//! Owns reading one small JSON document (`fetch`), understanding it (`feed`: Lango's own
//! format and Tauri's updater `latest.json`), comparing versions (`version`), the rules for
//! the feed's address and the release link (`link`), and the answer (`check`). It never
//! downloads or installs anything: a newer version is *reported* with a link the user opens
//! in their browser. No feed configured means no network access at all.
//!
//! It must not read settings itself (callers pass the feed URL from `config::UpdateSettings`)
//! nor print: the desktop's About screen and `lango update check` show the answer.

mod check;
mod error;
mod feed;
mod fetch;
pub mod link;
mod version;

pub use check::{check, check_with, UpdateStatus};
pub use error::UpdateError;
pub use feed::{parse_feed, Release};
pub use fetch::{FetchLimits, DEFAULT_MAX_FEED_BYTES, DEFAULT_TIMEOUT};
pub use version::{is_newer, parse_version};

/// The version of this build (the workspace version every crate shares).
pub const CURRENT_VERSION: &str = env!("CARGO_PKG_VERSION");
