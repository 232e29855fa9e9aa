//! Built-in tools, safe by default: they read the clock and the current session's memory,
//! and nothing else. There are deliberately no file-system or shell tools here.

use std::sync::Arc;

use chrono::{Local, SecondsFormat, Utc};
use serde_json::{json, Map, Value};

use super::schema::{params, ParamDef};
use crate::agent::traits::{Tool, ToolContext};
use crate::provider::BoxFuture;
use crate::store::Store;

pub const CURRENT_DATETIME: &str = "current_datetime";
pub const MEMORY_LIST_OBSERVATIONS: &str = "memory_list_observations";
pub const MEMORY_LIST_REFLECTIONS: &str = "memory_list_reflections";

/// The built-in tools: the clock, plus the memory listings when a store is given.
pub fn builtin_tools(store: Option<Store>) -> Vec<Arc<dyn Tool>> {
    let mut tools: Vec<Arc<dyn Tool>> = vec![Arc::new(CurrentDateTime)];
    if let Some(store) = store {
        tools.push(Arc::new(MemoryListObservations::new(store.clone())));
        tools.push(Arc::new(MemoryListReflections::new(store)));
    }
    tools
}

/// `current_datetime`: the local time and UTC as RFC 3339, and the local weekday.
#[derive(Debug, Clone, Copy, Default)]
pub struct CurrentDateTime;

impl Tool for CurrentDateTime {
    fn name(&self) -> &str {
        CURRENT_DATETIME
    }

    fn description(&self) -> &str {
        "Returns the current date and time: local time and UTC (RFC 3339), the local weekday and UTC offset."
    }

    fn input_schema(&self) -> Value {
        json!({})
    }

    fn run(
        &self,
        _ctx: ToolContext,
        _args: Map<String, Value>,
    ) -> BoxFuture<'_, Result<Value, String>> {
        Box::pin(async move {
            let utc = Utc::now();
            let local = utc.with_timezone(&Local);
            Ok(json!({
                "local": local.to_rfc3339_opts(SecondsFormat::Secs, false),
                "utc": utc.to_rfc3339_opts(SecondsFormat::Secs, true),
                "weekday": local.format("%A").to_string(),
                "utcOffset": local.format("%:z").to_string(),
            }))
        })
    }
}

fn limit_param() -> Value {
    params([(
        "limit",
        ParamDef::new(
            "integer",
            "Return only the newest N items (0 or absent = all).",
        ),
    )])
}

/// `limit` argument: a non-negative integer, absent = 0 (all).
fn limit_arg(args: &Map<String, Value>) -> Result<usize, String> {
    match args.get("limit") {
        None | Some(Value::Null) => Ok(0),
        Some(v) => v
            .as_u64()
            .or_else(|| {
                v.as_f64()
                    .filter(|f| *f >= 0.0 && f.fract() == 0.0)
                    .map(|f| f as u64)
            })
            .map(|n| n as usize)
            .ok_or_else(|| format!("limit must be a non-negative integer, got {v}")),
    }
}

fn session_key(ctx: &ToolContext) -> Option<&str> {
    ctx.session_key.as_deref().filter(|k| !k.is_empty())
}

/// `memory_list_observations`: the current session's observations, oldest first.
#[derive(Debug, Clone)]
pub struct MemoryListObservations {
    store: Store,
}

impl MemoryListObservations {
    pub fn new(store: Store) -> Self {
        Self { store }
    }
}

impl Tool for MemoryListObservations {
    fn name(&self) -> &str {
        MEMORY_LIST_OBSERVATIONS
    }

    fn description(&self) -> &str {
        "Lists the observations (compressed notes) the memory has made about this conversation, oldest first."
    }

    fn input_schema(&self) -> Value {
        limit_param()
    }

    fn run(
        &self,
        ctx: ToolContext,
        args: Map<String, Value>,
    ) -> BoxFuture<'_, Result<Value, String>> {
        Box::pin(list_memory(
            ctx,
            args,
            "observations",
            move |key, limit| async move { self.store.list_recent_observations(&key, limit).await },
        ))
    }
}

/// `memory_list_reflections`: the current session's reflections, oldest first.
#[derive(Debug, Clone)]
pub struct MemoryListReflections {
    store: Store,
}

impl MemoryListReflections {
    pub fn new(store: Store) -> Self {
        Self { store }
    }
}

impl Tool for MemoryListReflections {
    fn name(&self) -> &str {
        MEMORY_LIST_REFLECTIONS
    }

    fn description(&self) -> &str {
        "Lists the reflections (condensed long-term notes) the memory has made about this conversation, oldest first."
    }

    fn input_schema(&self) -> Value {
        limit_param()
    }

    fn run(
        &self,
        ctx: ToolContext,
        args: Map<String, Value>,
    ) -> BoxFuture<'_, Result<Value, String>> {
        Box::pin(list_memory(
            ctx,
            args,
            "reflections",
            move |key, limit| async move { self.store.list_recent_reflections(&key, limit).await },
        ))
    }
}

/// The body both memory tools share: the current session's newest `limit` items (0 or absent =
/// all), oldest first, as `{"<field>": [...]}`; outside a session, an empty list.
async fn list_memory<T, F, Fut>(
    ctx: ToolContext,
    args: Map<String, Value>,
    field: &str,
    fetch: F,
) -> Result<Value, String>
where
    T: serde::Serialize,
    F: FnOnce(String, usize) -> Fut,
    Fut: std::future::Future<Output = crate::store::StoreResult<Vec<T>>>,
{
    let limit = limit_arg(&args)?;
    let Some(key) = session_key(&ctx) else {
        return Ok(json!({ field: [] }));
    };
    let items = fetch(key.to_owned(), limit)
        .await
        .map_err(|e| e.to_string())?;
    let items = serde_json::to_value(items).map_err(|e| e.to_string())?;
    Ok(json!({ field: items }))
}
