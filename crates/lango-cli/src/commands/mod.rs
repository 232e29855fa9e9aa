//! One module per command group; each turns arguments into engine calls and prints.

pub mod approve;
pub mod attach;
pub mod chat;
pub mod config;
pub mod doctor;
pub mod import;
pub mod mcp;
pub mod memory;
pub mod sessions;
pub mod update;

use lango_core::paths::AppPaths;

use crate::args::Cli;
use crate::exit::CliError;

/// What every command needs: where the files are and how to print.
pub struct Context {
    pub paths: AppPaths,
    pub json: bool,
    /// Who approves tool calls (`lango chat --approve`).
    pub hooks: Option<std::sync::Arc<dyn lango_core::agent::TurnHooks>>,
}

impl Context {
    pub fn new(cli: &Cli) -> Result<Self, CliError> {
        Ok(Self {
            paths: AppPaths::resolve(cli.data_dir.as_deref())?,
            json: cli.json,
            hooks: None,
        })
    }
}
