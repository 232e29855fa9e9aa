//! Waiting for an app's MCP servers to be ready before a test sends (at most 30 s).

use std::time::Duration;

use lango_core::app::App;

/// Returns once every configured server is ready; fails the test with their states after 30 s.
pub async fn servers_ready(app: &App) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while app.mcp_servers().iter().any(|s| s.state != "ready") {
        assert!(
            tokio::time::Instant::now() < deadline,
            "{:?}",
            app.mcp_servers()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
