//! Tool schema normalisation, the tool adapter (timeouts, errors) and the built-in tools
//! (REFERENCE §1.5, acceptance 16–18; spec 000 "Tool Adapter").

mod adapter;
mod builtin;
mod schema;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use lango_core::agent::tools::{
    builtin_tools, format_duration, normalize_schema, params, CurrentDateTime,
    MemoryListObservations, MemoryListReflections, ParamDef, ToolAdapter,
};
use lango_core::agent::ToolContext;
use lango_core::store::{Observation, Reflection, Store};
use serde_json::{json, Map, Value};
use tempfile::TempDir;

// ---------------------------------------------------------------------------------------------
// Fakes

#[path = "../common/fn_tool.rs"]
mod fn_tool;
use fn_tool::FnTool;

fn ctx(session_key: Option<&str>) -> ToolContext {
    ToolContext {
        agent_name: "lango-agent".into(),
        session_key: session_key.map(str::to_owned),
        call_id: "call_1".into(),
        progress: None,
    }
}

fn obj(value: Value) -> Map<String, Value> {
    value.as_object().cloned().expect("object")
}

async fn temp_store() -> (TempDir, Store) {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Store::open(&dir.path().join("lango.db"))
        .await
        .expect("open store");
    (dir, store)
}
