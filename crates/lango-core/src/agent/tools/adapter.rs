//! The tool adapter (spec 000 "Tool Adapter", REFERENCE §1.5): turns a [`Tool`] into what the
//! runner declares to the model (a [`ToolSpec`] with a normalised schema) and runs its calls
//! with the per-tool timeout.
//!
//! Every outcome is a function-response object: the tool's result, or `{"error": "<message>"}`
//! for a failure, a timeout or a panic, so the run continues and the model sees what went
//! wrong. [FIX] A call runs in its own task, which is aborted on timeout or when the call is
//! dropped: a tool that ignores cancellation no longer holds up the turn.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value};

use super::schema::normalize_schema;
use crate::agent::traits::{Tool, ToolContext, ToolOutput};
use crate::provider::ToolSpec;

/// A tool as the runner uses it.
#[derive(Clone)]
pub struct ToolAdapter {
    tool: Arc<dyn Tool>,
    spec: ToolSpec,
    timeout: Option<Duration>,
}

impl std::fmt::Debug for ToolAdapter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolAdapter")
            .field("spec", &self.spec)
            .field("timeout", &self.timeout)
            .finish()
    }
}

impl ToolAdapter {
    /// `timeout` = `agent.toolTimeout`; zero means no limit.
    pub fn new(tool: Arc<dyn Tool>, timeout: Duration) -> Self {
        let spec = ToolSpec {
            name: tool.name().to_owned(),
            description: tool.description().to_owned(),
            parameters: normalize_schema(&tool.input_schema()),
        };
        Self {
            tool,
            spec,
            timeout: (!timeout.is_zero()).then_some(timeout),
        }
    }

    pub fn name(&self) -> &str {
        &self.spec.name
    }

    /// What the model is told about this tool.
    pub fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    pub fn timeout(&self) -> Option<Duration> {
        self.timeout
    }

    /// The tool itself (its origin and approval policy).
    pub fn tool(&self) -> &Arc<dyn Tool> {
        &self.tool
    }

    /// Runs one call and returns the function-response object: the result (an object as is,
    /// anything else as `{"result": value}`) or `{"error": "<message>"}`.
    pub async fn call(&self, ctx: ToolContext, args: Map<String, Value>) -> Map<String, Value> {
        match self.try_call(ctx, args).await {
            Ok(value) => result_object(value),
            Err(message) => error_object(message),
        }
    }

    /// Runs one call; `Err` carries the message the model will see.
    pub async fn try_call(
        &self,
        ctx: ToolContext,
        args: Map<String, Value>,
    ) -> Result<Value, String> {
        match self.run(ctx, args).await {
            Ok(output) if output.is_error => Err(match output.value {
                Value::String(s) => s,
                other => other.to_string(),
            }),
            Ok(output) => Ok(output.value),
            Err(failure) => Err(failure.message().to_owned()),
        }
    }

    /// Runs one call with the per-tool timeout; the tool's whole output, or how it failed.
    pub async fn run(
        &self,
        ctx: ToolContext,
        args: Map<String, Value>,
    ) -> Result<ToolOutput, ToolFailure> {
        let tool = Arc::clone(&self.tool);
        // Dropping `task` (on return, or when this future is dropped) aborts the tool.
        let mut task = AbortOnDrop(tokio::spawn(
            async move { tool.run_output(ctx, args).await },
        ));
        let joined = match self.timeout {
            Some(limit) => match tokio::time::timeout(limit, &mut task).await {
                Ok(joined) => joined,
                Err(_) => {
                    return Err(ToolFailure::TimedOut(format!(
                        "tool \"{}\" timed out after {}",
                        self.spec.name,
                        format_duration(limit)
                    )));
                }
            },
            None => (&mut task).await,
        };
        match joined {
            Ok(Ok(output)) => Ok(output),
            Ok(Err(message)) => Err(ToolFailure::Failed(message)),
            Err(e) if e.is_panic() => Err(ToolFailure::Failed(format!(
                "tool \"{}\" panicked",
                self.spec.name
            ))),
            Err(_) => Err(ToolFailure::Cancelled(format!(
                "tool \"{}\" was cancelled",
                self.spec.name
            ))),
        }
    }
}

/// How a tool call failed; each carries the message the model sees.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolFailure {
    Failed(String),
    TimedOut(String),
    Cancelled(String),
}

impl ToolFailure {
    pub fn message(&self) -> &str {
        match self {
            Self::Failed(m) | Self::TimedOut(m) | Self::Cancelled(m) => m,
        }
    }
}

/// `{"error": message}`.
pub fn error_object(message: impl Into<String>) -> Map<String, Value> {
    let mut map = Map::new();
    map.insert("error".into(), Value::String(message.into()));
    map
}

/// A tool result as a function-response object.
pub fn result_object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => {
            let mut map = Map::new();
            map.insert("result".into(), other);
            map
        }
    }
}

/// Aborts the tool task when the call is dropped (timeout, cancellation, a dropped turn).
struct AbortOnDrop(tokio::task::JoinHandle<Result<ToolOutput, String>>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

impl std::future::Future for AbortOnDrop {
    type Output = Result<Result<ToolOutput, String>, tokio::task::JoinError>;

    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Self::Output> {
        std::pin::Pin::new(&mut self.0).poll(cx)
    }
}

/// A duration the way the reference printed it (Go style): `50ms`, `1.5s`, `2m0s`, `1h0m0s`.
pub fn format_duration(d: Duration) -> String {
    let nanos = d.as_nanos();
    if nanos == 0 {
        return "0s".into();
    }
    if nanos < 1_000 {
        return format!("{nanos}ns");
    }
    if nanos < 1_000_000 {
        return format!("{}µs", decimal(nanos, 1_000));
    }
    if nanos < 1_000_000_000 {
        return format!("{}ms", decimal(nanos, 1_000_000));
    }
    let secs = d.as_secs();
    let (h, m) = (secs / 3600, (secs % 3600) / 60);
    let s = decimal(
        u128::from(secs % 60) * 1_000_000_000 + u128::from(d.subsec_nanos()),
        1_000_000_000,
    );
    match (h, m) {
        (0, 0) => format!("{s}s"),
        (0, m) => format!("{m}m{s}s"),
        (h, m) => format!("{h}h{m}m{s}s"),
    }
}

/// `value / unit` with the fraction's trailing zeros removed.
fn decimal(value: u128, unit: u128) -> String {
    let (whole, frac) = (value / unit, value % unit);
    if frac == 0 {
        return whole.to_string();
    }
    let width = unit.to_string().len() - 1;
    let frac = format!("{frac:0width$}");
    format!("{whole}.{}", frac.trim_end_matches('0'))
}
