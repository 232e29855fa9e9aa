//! `lango config show|validate|path|set-key|delete-key`.

use std::io::{BufRead, IsTerminal};

use lango_core::config::{self, Settings};
use lango_core::secrets::{probe_keychain, ApiKey, KeyLocation, SecretStore};
use serde_json::json;

use super::Context;
use crate::args::ConfigCommand;
use crate::exit::{CliError, Kind};
use crate::output;
use crate::terminal::{errln, outln};

pub async fn run(ctx: &Context, command: &ConfigCommand) -> Result<(), CliError> {
    match command {
        ConfigCommand::Show => show(ctx),
        ConfigCommand::Validate => validate(ctx),
        ConfigCommand::Path => path(ctx),
        ConfigCommand::SetKey { provider } => set_key(ctx, provider),
        ConfigCommand::DeleteKey { provider } => delete_key(ctx, provider),
    }
}

fn load(ctx: &Context) -> Result<Settings, CliError> {
    let loaded = config::load(&ctx.paths)?;
    for warning in &loaded.warnings {
        errln!("warning: {warning}");
    }
    Ok(loaded.settings)
}

fn show(ctx: &Context) -> Result<(), CliError> {
    let settings = load(ctx)?;
    outln!("{}", settings.to_json_pretty());
    Ok(())
}

fn validate(ctx: &Context) -> Result<(), CliError> {
    let file = ctx.paths.settings_file();
    let loaded = config::load(&ctx.paths)?;
    if ctx.json {
        return output::json(&json!({ "file": file, "valid": true, "warnings": loaded.warnings }));
    }
    if file.exists() {
        outln!("{} is valid", file.display());
    } else {
        outln!("{} does not exist yet; the defaults apply", file.display());
    }
    for warning in &loaded.warnings {
        outln!("warning: {warning}");
    }
    Ok(())
}

fn path(ctx: &Context) -> Result<(), CliError> {
    let p = &ctx.paths;
    if ctx.json {
        return output::json(&json!({
            "settings": p.settings_file(),
            "database": p.database_file(),
            "backups": p.backups_dir(),
            "logs": p.log_dir,
        }));
    }
    outln!("settings  {}", p.settings_file().display());
    outln!("database  {}", p.database_file().display());
    outln!("backups   {}", p.backups_dir().display());
    outln!("logs      {}", p.log_dir.display());
    Ok(())
}

fn secret_store(ctx: &Context, settings: &Settings) -> SecretStore {
    SecretStore::new(
        probe_keychain(),
        settings.secrets.allow_file_store,
        &ctx.paths.config_dir,
    )
}

fn known_provider(settings: &Settings, provider: &str) -> Result<(), CliError> {
    if settings.provider(provider).is_none() {
        return Err(CliError::new(
            Kind::Config,
            format!("no provider {provider:?} in the settings; add it under \"providers\" first"),
        ));
    }
    Ok(())
}

/// Reads the key from stdin (one line), so it never lands in shell history or `ps`.
fn set_key(ctx: &Context, provider: &str) -> Result<(), CliError> {
    let settings = load(ctx)?;
    known_provider(&settings, provider)?;
    let key = ApiKey::new(read_key(provider)?);
    let location = secret_store(ctx, &settings).set(provider, &key)?;
    if let KeyLocation::File { path } = &location {
        errln!(
            "warning: no OS keychain is available; the key is stored UNENCRYPTED in {} (readable only by you)",
            path.display()
        );
    }
    if ctx.json {
        return output::json(&json!({ "provider": provider, "storedIn": location }));
    }
    outln!("the {provider} key is {location}");
    Ok(())
}

/// One line from stdin; typed at a terminal, without echo (nobody looking over a shoulder or
/// at a screen recording sees it).
fn read_key(provider: &str) -> Result<String, CliError> {
    let cannot = |e: std::io::Error| {
        CliError::new(Kind::Usage, format!("cannot read the key from stdin: {e}"))
    };
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        return rpassword::prompt_password(format!("API key for {provider} (not shown): "))
            .map_err(cannot);
    }
    let mut line = String::new();
    stdin.lock().read_line(&mut line).map_err(cannot)?;
    Ok(line)
}

fn delete_key(ctx: &Context, provider: &str) -> Result<(), CliError> {
    let settings = load(ctx)?;
    secret_store(ctx, &settings).delete(provider)?;
    outln!("removed any stored key for {provider}");
    Ok(())
}
