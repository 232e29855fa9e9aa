//! `lango update check`: what the release feed in the settings says about this build. The
//! check is `lango_core::update`; this prints it (feed text sanitised like all output) and
//! picks the exit code: 0 up to date, 100 a newer version, 3 no feed set, 8 feed unreadable.

use lango_core::app::{update_check, UpdateCheck, UpdateOutcome};
use lango_core::config;
use lango_core::update;

use super::Context;
use crate::args::UpdateCommand;
use crate::exit::{CliError, Kind};
use crate::output;
use crate::terminal::outln;

pub async fn run(ctx: &Context, command: &UpdateCommand) -> Result<(), CliError> {
    match command {
        UpdateCommand::Check => check(ctx).await,
    }
}

async fn check(ctx: &Context) -> Result<(), CliError> {
    let settings = config::load(&ctx.paths)?.settings;
    let result = update_check(update::check(settings.updates.feed()).await);
    if ctx.json {
        output::json(&result)?;
    } else {
        print(&result);
    }
    let silent = |kind| Err(CliError::new(kind, ""));
    match result.outcome {
        UpdateOutcome::UpToDate => Ok(()),
        UpdateOutcome::Available => silent(Kind::UpdateAvailable),
        UpdateOutcome::Off => Err(CliError::new(
            Kind::Config,
            "no release feed is set: add \"updates\": {\"feedUrl\": \"https://…\"} to the settings \
             (`lango config path` shows where they are)",
        )),
        UpdateOutcome::Failed => {
            let Some(e) = &result.error else {
                return Err(CliError::internal("the update check failed without a reason"));
            };
            let kind = if e.code == "update_feed_url" {
                Kind::Config
            } else {
                Kind::UpdateFeed
            };
            Err(CliError::new(kind, format!("{} ({})", e.message, e.detail)))
        }
    }
}

fn print(check: &UpdateCheck) {
    let latest = check.latest.as_deref().unwrap_or("?");
    match check.outcome {
        UpdateOutcome::UpToDate => outln!(
            "You have the latest version: Lango {} (the feed's latest is {latest}).",
            check.current
        ),
        UpdateOutcome::Available => {
            outln!("Lango {latest} is available (you have {}).", check.current);
            if let Some(date) = &check.published {
                outln!("Published: {date}");
            }
            if let Some(url) = &check.url {
                outln!("Get it from: {url}");
            }
            if let Some(notes) = &check.notes {
                outln!();
                outln!("{}", notes.trim_end());
            }
        }
        // Said on stderr with the exit code.
        UpdateOutcome::Off | UpdateOutcome::Failed => {}
    }
}
