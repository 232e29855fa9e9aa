//! Tools: the answer to an approval card, and Settings → Tools (MCP servers, restart,
//! per-tool policy). Adding or removing servers goes through the settings document.

use lango_core::agent::ApprovalDecision;
use lango_core::app::AppError;
use lango_core::tools::mcp::{McpServerInfo, ToolPolicy};
use tauri::State;

use crate::state::AppState;

/// Allow once, always allow, or deny the call the card shows. False when nothing waits.
#[tauri::command]
pub async fn approve_tool_call(
    state: State<'_, AppState>,
    session_key: String,
    call_id: String,
    decision: ApprovalDecision,
) -> Result<bool, AppError> {
    Ok(state
        .app()
        .await?
        .approve_tool_call(&session_key, &call_id, decision))
}

#[tauri::command]
pub async fn mcp_servers(state: State<'_, AppState>) -> Result<Vec<McpServerInfo>, AppError> {
    Ok(state.app().await?.mcp_servers())
}

#[tauri::command]
pub async fn mcp_restart(
    state: State<'_, AppState>,
    name: String,
) -> Result<McpServerInfo, AppError> {
    state.app().await?.mcp_restart(&name)
}

#[tauri::command]
pub async fn mcp_set_tool_policy(
    state: State<'_, AppState>,
    server: String,
    tool: String,
    policy: ToolPolicy,
) -> Result<McpServerInfo, AppError> {
    state
        .app()
        .await?
        .set_tool_policy(&server, &tool, policy)
        .await
}
