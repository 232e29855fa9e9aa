//! A server's stdin/stdout as the SDK's transport, with a bound on what one message may
//! take: a line longer than [`MAX_MESSAGE_BYTES`] is not buffered, and when it answers one
//! of our requests, that request gets an error saying how large the answer was — at once,
//! where the SDK alone would drop the line and leave the call waiting for its timeout.
//!
//! Owns the child process's pipes and its end (stdin closed, 3 s to exit, SIGTERM, kill:
//! the MCP stdio shutdown sequence). It does not decide what a call's error says to the
//! user (`connection` does, from [`OversizedAnswers`]).

use std::time::Duration;

use process_wrap::tokio::{ChildWrapper, CommandWrap};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::transport::Transport;
use rmcp::RoleClient;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream};
use tokio::process::{ChildStderr, ChildStdin};

use super::oversized::{
    megabytes, response_id, too_large_answer, OversizedAnswers, EDGE_BYTES, MAX_MESSAGE_BYTES,
};

/// How long a server has to exit after its stdin closed (then SIGTERM, then the same again).
const EXIT_WAIT: Duration = Duration::from_secs(3);

/// The child and its pipes, as the SDK's transport.
pub struct StdioTransport {
    child: ChildGuard,
    inner: AsyncRwTransport<RoleClient, DuplexStream, ChildStdin>,
}

impl StdioTransport {
    /// Starts `cmd` with piped stdio. Returns the transport and the child's stderr.
    pub fn spawn(
        mut cmd: CommandWrap,
        oversized: OversizedAnswers,
    ) -> std::io::Result<(Self, Option<ChildStderr>)> {
        cmd.command_mut()
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        let mut child = cmd.spawn()?;
        let stdin = child.inner_mut().stdin().take();
        let stdout = child.inner_mut().stdout().take();
        let stderr = child.inner_mut().stderr().take();
        let guard = ChildGuard(Some(child));
        let (Some(stdin), Some(stdout)) = (stdin, stdout) else {
            return Err(std::io::Error::other(
                "the server's stdin or stdout is missing",
            ));
        };
        let (to_sdk, from_child) = tokio::io::duplex(64 * 1024);
        tokio::spawn(forward(stdout, to_sdk, MAX_MESSAGE_BYTES, oversized));
        // Lines reach the SDK already bounded (a cut line ends early and is skipped as
        // unparsable), so its own limit never has to drop one silently.
        let inner = AsyncRwTransport::new_client(from_child, stdin)
            .with_max_line_length(MAX_MESSAGE_BYTES + 2);
        Ok((
            Self {
                child: guard,
                inner,
            },
            stderr,
        ))
    }

    pub fn id(&self) -> Option<u32> {
        self.child.0.as_ref().and_then(|c| c.id())
    }

    /// Closes stdin and gives the server [`EXIT_WAIT`] to exit, then SIGTERM (Unix), then
    /// kills it.
    async fn shut_down(&mut self) -> std::io::Result<()> {
        self.inner.close().await?;
        let Some(child) = self.child.0.as_mut() else {
            return Ok(());
        };
        if exited_within(child, EXIT_WAIT).await {
            self.child.0 = None;
            return Ok(());
        }
        #[cfg(unix)]
        if child.signal(libc::SIGTERM).is_ok() && exited_within(child, EXIT_WAIT).await {
            self.child.0 = None;
            return Ok(());
        }
        let killed = Box::into_pin(child.kill()).await;
        self.child.0 = None;
        killed
    }
}

impl Transport<RoleClient> for StdioTransport {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(item)
    }

    fn receive(
        &mut self,
    ) -> impl std::future::Future<Output = Option<RxJsonRpcMessage<RoleClient>>> + Send {
        self.inner.receive()
    }

    fn close(&mut self) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send {
        self.shut_down()
    }
}

async fn exited_within(child: &mut Box<dyn ChildWrapper>, limit: Duration) -> bool {
    matches!(tokio::time::timeout(limit, child.wait()).await, Ok(Ok(_)))
}

/// Kills the child when the transport is dropped without a shutdown.
struct ChildGuard(Option<Box<dyn ChildWrapper>>);

impl Drop for ChildGuard {
    fn drop(&mut self) {
        if let Some(mut child) = self.0.take() {
            // `kill` waits for the child too, so it leaves no zombie.
            if let Ok(rt) = tokio::runtime::Handle::try_current() {
                rt.spawn(async move {
                    if let Err(e) = Box::into_pin(child.kill()).await {
                        tracing::warn!(error = %e, "could not kill an MCP server");
                    }
                });
            }
        }
    }
}

/// Copies `from`'s lines to `to`, each at most `limit` bytes. A longer line is cut where
/// it passes the limit (ended there, so the reader skips it as unparsable), and when it was
/// the answer to a request, an error answer for that request follows it.
async fn forward<R, W>(from: R, mut to: W, limit: usize, oversized: OversizedAnswers)
where
    R: tokio::io::AsyncRead + Unpin,
    W: tokio::io::AsyncWrite + Unpin,
{
    let mut reader = BufReader::with_capacity(64 * 1024, from);
    let mut line = LineEdges::default();
    loop {
        let chunk = match reader.fill_buf().await {
            Ok([]) | Err(_) => break,
            Ok(chunk) => chunk,
        };
        let newline = chunk.iter().position(|b| *b == b'\n');
        let take = newline.map_or(chunk.len(), |i| i + 1);
        let part = &chunk[..take];
        let sent = if line.cut {
            Ok(())
        } else if line.bytes + take > limit {
            line.cut = true;
            to.write_all(b"\n").await
        } else {
            to.write_all(part).await
        };
        line.keep(part);
        reader.consume(take);
        if sent.is_err() {
            break; // The SDK's side is gone: the connection is over.
        }
        if newline.is_some() {
            let ended = std::mem::take(&mut line);
            if ended.cut
                && answer_too_large(&mut to, &ended, limit, &oversized)
                    .await
                    .is_err()
            {
                break;
            }
        }
    }
    let _ = to.shutdown().await;
}

/// Writes the error answer for a cut line that answered a request (nothing for a request
/// or notification from the server).
async fn answer_too_large<W: tokio::io::AsyncWrite + Unpin>(
    to: &mut W,
    line: &LineEdges,
    limit: usize,
    oversized: &OversizedAnswers,
) -> std::io::Result<()> {
    let Some(id) = response_id(&line.head, &line.tail) else {
        tracing::warn!(
            size = %megabytes(line.bytes),
            "an MCP server sent a message over the size limit that answers no request; skipped"
        );
        return Ok(());
    };
    tracing::warn!(%id, size = %megabytes(line.bytes), "an MCP server's answer is over the size limit");
    oversized.insert(&id, Some(line.bytes));
    let mut answer = too_large_answer(&id, Some(line.bytes), limit);
    answer.push('\n');
    to.write_all(answer.as_bytes()).await
}

/// One line's length and its first and last [`EDGE_BYTES`].
#[derive(Default)]
struct LineEdges {
    bytes: usize,
    cut: bool,
    head: Vec<u8>,
    tail: Vec<u8>,
}

impl LineEdges {
    fn keep(&mut self, part: &[u8]) {
        self.bytes += part.len();
        let room = EDGE_BYTES.saturating_sub(self.head.len());
        self.head.extend_from_slice(&part[..room.min(part.len())]);
        self.tail.extend_from_slice(part);
        if self.tail.len() > 2 * EDGE_BYTES {
            self.tail.drain(..self.tail.len() - EDGE_BYTES);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    async fn forwarded(input: Vec<u8>, limit: usize) -> (String, OversizedAnswers) {
        let oversized = OversizedAnswers::default();
        let mut out = Vec::new();
        forward(input.as_slice(), &mut out, limit, oversized.clone()).await;
        (String::from_utf8(out).unwrap(), oversized)
    }

    #[tokio::test]
    async fn lines_within_the_limit_pass_unchanged() {
        let input = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\nnot json\n".to_vec();
        let (out, oversized) = forwarded(input.clone(), 100).await;
        assert_eq!(out.as_bytes(), input.as_slice());
        assert_eq!(oversized.take("1"), None);
    }

    #[tokio::test]
    async fn an_oversized_answer_becomes_an_error_for_its_request_and_the_next_line_passes() {
        let big = format!(
            "{{\"result\":{{\"text\":\"{}\"}},\"jsonrpc\":\"2.0\",\"id\":7}}\n",
            "x".repeat(300_000)
        );
        let next = "{\"jsonrpc\":\"2.0\",\"id\":8,\"result\":{}}\n";
        let (out, oversized) = forwarded(format!("{big}{next}").into_bytes(), 100_000).await;
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 3, "cut line, error answer, next line");
        assert!(lines[0].len() <= 100_000);
        let answer: serde_json::Value = serde_json::from_str(lines[1]).unwrap();
        assert_eq!(answer["id"], serde_json::json!(7));
        assert!(answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("0.3 MB"));
        assert_eq!(lines[2], next.trim_end());
        assert_eq!(oversized.take("7"), Some(Some(big.len())));
        assert_eq!(oversized.take("7"), None, "taken once");
    }

    #[tokio::test]
    async fn an_oversized_notification_is_skipped_without_an_answer() {
        let big = format!(
            "{{\"method\":\"notifications/message\",\"params\":{{\"data\":\"{}\"}}}}\n",
            "y".repeat(50_000)
        );
        let (out, _) = forwarded(big.into_bytes(), 10_000).await;
        assert_eq!(out.lines().count(), 1, "only the cut line: {}", out.len());
    }

    #[tokio::test]
    async fn the_sdk_side_sees_the_end_when_the_server_closes_stdout() {
        let (mut read, write) = tokio::io::duplex(1024);
        let task = tokio::spawn(forward(
            &b"{\"a\":1}\n"[..],
            write,
            100,
            OversizedAnswers::default(),
        ));
        let mut all = String::new();
        read.read_to_string(&mut all).await.unwrap();
        task.await.unwrap();
        assert_eq!(all, "{\"a\":1}\n");
    }
}
