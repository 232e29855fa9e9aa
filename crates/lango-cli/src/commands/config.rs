//! `lango config show|validate|path|set-key|delete-key`.

use std::io::{BufRead, IsTerminal};

use lango_core::config::{self, Settings};
use lango_core::secrets::{probe_keychain, ApiKey, KeyLocation, SecretStore};
use serde_json::json;

use super::Context;
use crate::args::ConfigCommand;
use crate::exit::{CliError, Kind};
use crate::output;

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
        eprintln!("warning: {warning}");
    }
    Ok(loaded.settings)
}

fn show(ctx: &Context) -> Result<(), CliError> {
    let settings = load(ctx)?;
    println!("{}", settings.to_json_pretty());
    Ok(())
}

fn validate(ctx: &Context) -> Result<(), CliError> {
    let file = ctx.paths.settings_file();
    let loaded = config::load(&ctx.paths)?;
    if ctx.json {
        return output::json(&json!({ "file": file, "valid": true, "warnings": loaded.warnings }));
    }
    if file.exists() {
        println!("{} is valid", file.display());
    } else {
        println!("{} does not exist yet; the defaults apply", file.display());
    }
    for warning in &loaded.warnings {
        println!("warning: {warning}");
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
    println!("settings  {}", p.settings_file().display());
    println!("database  {}", p.database_file().display());
    println!("backups   {}", p.backups_dir().display());
    println!("logs      {}", p.log_dir.display());
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
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        eprint!("API key for {provider}: ");
    }
    let mut line = String::new();
    stdin
        .lock()
        .read_line(&mut line)
        .map_err(|e| CliError::new(Kind::Usage, format!("cannot read the key from stdin: {e}")))?;
    let key = ApiKey::new(line);
    let location = secret_store(ctx, &settings).set(provider, &key)?;
    if let KeyLocation::File { path } = &location {
        eprintln!(
            "warning: no OS keychain is available; the key is stored UNENCRYPTED in {} (readable only by you)",
            path.display()
        );
    }
    if ctx.json {
        return output::json(&json!({ "provider": provider, "storedIn": location }));
    }
    println!("stored the {provider} key in {location}");
    Ok(())
}

fn delete_key(ctx: &Context, provider: &str) -> Result<(), CliError> {
    let settings = load(ctx)?;
    secret_store(ctx, &settings).delete(provider)?;
    println!("removed any stored key for {provider}");
    Ok(())
}
