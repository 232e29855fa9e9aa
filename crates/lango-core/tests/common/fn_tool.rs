//! A tool whose body is a closure, for the integration tests that need one (the runner's and
//! the tool adapter's): `#[path = "../common/fn_tool.rs"] mod fn_tool;` in each.

use std::sync::Arc;

use lango_core::agent::{Tool, ToolContext};
use lango_core::provider::BoxFuture;
use serde_json::{Map, Value};

type RunFn = dyn Fn(ToolContext, Map<String, Value>) -> BoxFuture<'static, Result<Value, String>>
    + Send
    + Sync;

/// A tool named `name` with the input schema `schema`, described as "a test tool".
pub struct FnTool {
    name: String,
    schema: Value,
    run: Box<RunFn>,
}

impl FnTool {
    pub fn arc(
        name: &str,
        schema: Value,
        run: impl Fn(ToolContext, Map<String, Value>) -> BoxFuture<'static, Result<Value, String>>
            + Send
            + Sync
            + 'static,
    ) -> Arc<dyn Tool> {
        Arc::new(Self {
            name: name.into(),
            schema,
            run: Box::new(run),
        })
    }
}

impl Tool for FnTool {
    fn name(&self) -> &str {
        &self.name
    }
    fn description(&self) -> &str {
        "a test tool"
    }
    fn input_schema(&self) -> Value {
        self.schema.clone()
    }
    fn run(
        &self,
        ctx: ToolContext,
        args: Map<String, Value>,
    ) -> BoxFuture<'_, Result<Value, String>> {
        (self.run)(ctx, args)
    }
}
