//! Closing the tool calls a failed run left without a response (REFERENCE §2.6), over the
//! store or the session service the runner was given.

use crate::agent::error::AgentError;
use crate::agent::session::{close_dangling_calls, SessionServiceAdapter};
use crate::provider::BoxFuture;

/// Closes the tool calls a failed run left without a response (REFERENCE §2.6).
/// `run_and_collect` calls it after every failed run.
pub trait DanglingCallCloser: Send + Sync {
    fn close_dangling_calls<'a>(
        &'a self,
        session_key: &'a str,
        root_agent_name: &'a str,
    ) -> BoxFuture<'a, Result<(), AgentError>>;
}

impl DanglingCallCloser for crate::store::Store {
    fn close_dangling_calls<'a>(
        &'a self,
        session_key: &'a str,
        root_agent_name: &'a str,
    ) -> BoxFuture<'a, Result<(), AgentError>> {
        Box::pin(async move {
            close_dangling_calls(self, session_key, root_agent_name)
                .await
                .map(|_| ())
        })
    }
}

impl DanglingCallCloser for SessionServiceAdapter {
    fn close_dangling_calls<'a>(
        &'a self,
        session_key: &'a str,
        root_agent_name: &'a str,
    ) -> BoxFuture<'a, Result<(), AgentError>> {
        self.store()
            .close_dangling_calls(session_key, root_agent_name)
    }
}
