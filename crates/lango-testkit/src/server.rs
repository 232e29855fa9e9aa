//! A minimal HTTP/1.1 server for tests: one request per connection (`Connection: close`),
//! every request recorded, responses scripted as a list of [`Action`]s.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// A request as the server received it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedRequest {
    pub method: String,
    /// Path with the query string.
    pub path: String,
    /// Header names lowercased.
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl RecordedRequest {
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or(serde_json::Value::Null)
    }
}

/// One step of a scripted response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Write these bytes (the status line and headers are bytes too: see [`Reply`]).
    Write(Vec<u8>),
    Sleep(Duration),
    /// Close the socket with RST (SO_LINGER 0): the client sees a reset, not a clean end.
    Reset,
    /// Stop writing but keep the connection open for this long (an idle-timeout test).
    Stall(Duration),
    /// Write these bytes again and again until the client closes the connection (an endless
    /// stream); counted in `closed_early` when it does.
    Repeat(Vec<u8>),
}

/// A complete scripted response.
#[derive(Debug, Clone, Default)]
pub struct Reply {
    pub actions: Vec<Action>,
}

impl Reply {
    /// Status line and headers (no Content-Length: the body ends when the connection closes).
    pub fn head(status: u16, content_type: &str, extra_headers: &[(&str, &str)]) -> Self {
        let reason = match status {
            200 => "OK",
            400 => "Bad Request",
            401 => "Unauthorized",
            404 => "Not Found",
            429 => "Too Many Requests",
            500 => "Internal Server Error",
            503 => "Service Unavailable",
            _ => "Status",
        };
        let mut head = format!(
            "HTTP/1.1 {status} {reason}\r\nContent-Type: {content_type}\r\nConnection: close\r\n"
        );
        for (k, v) in extra_headers {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
        head.push_str("\r\n");
        Self {
            actions: vec![Action::Write(head.into_bytes())],
        }
    }

    /// A whole response in one write.
    pub fn full(status: u16, content_type: &str, body: impl Into<Vec<u8>>) -> Self {
        Self::head(status, content_type, &[]).then(Action::Write(body.into()))
    }

    pub fn then(mut self, action: Action) -> Self {
        self.actions.push(action);
        self
    }
}

type Handler = dyn Fn(&RecordedRequest, usize) -> Reply + Send + Sync;

/// A running server. Dropping it stops accepting connections.
pub struct TestServer {
    pub port: u16,
    requests: Arc<Mutex<Vec<RecordedRequest>>>,
    /// Connections whose client closed the socket before the reply was fully written.
    closed_early: Arc<AtomicUsize>,
    task: tokio::task::JoinHandle<()>,
}

impl TestServer {
    /// Starts on an ephemeral port. `handler(request, n)` gets the request and its 0-based
    /// number (so scripts can fail the first attempts and succeed later).
    pub async fn start(
        handler: impl Fn(&RecordedRequest, usize) -> Reply + Send + Sync + 'static,
    ) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind 127.0.0.1");
        let port = listener.local_addr().expect("local addr").port();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let closed_early = Arc::new(AtomicUsize::new(0));
        let handler: Arc<Handler> = Arc::new(handler);
        let (reqs, closed) = (requests.clone(), closed_early.clone());
        let task = tokio::spawn(async move {
            loop {
                let Ok((socket, _)) = listener.accept().await else {
                    break;
                };
                let (handler, reqs, closed) = (handler.clone(), reqs.clone(), closed.clone());
                tokio::spawn(async move { serve(socket, handler, reqs, closed).await });
            }
        });
        Self {
            port,
            requests,
            closed_early,
            task,
        }
    }

    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.requests.lock().map(|r| r.clone()).unwrap_or_default()
    }

    /// How many connections the client closed while the server was still writing or waiting
    /// to write (a cancelled or dropped stream).
    pub fn closed_early(&self) -> usize {
        self.closed_early.load(Ordering::SeqCst)
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn serve(
    mut socket: TcpStream,
    handler: Arc<Handler>,
    requests: Arc<Mutex<Vec<RecordedRequest>>>,
    closed_early: Arc<AtomicUsize>,
) {
    let Some(request) = read_request(&mut socket).await else {
        return;
    };
    let n = {
        let mut all = match requests.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        };
        all.push(request.clone());
        all.len() - 1
    };
    let reply = handler(&request, n);
    for action in reply.actions {
        match action {
            Action::Write(bytes) => {
                if socket.write_all(&bytes).await.is_err() || socket.flush().await.is_err() {
                    closed_early.fetch_add(1, Ordering::SeqCst);
                    return;
                }
            }
            Action::Sleep(d) => {
                // Notice a client that goes away while we wait.
                if client_closed_within(&mut socket, d).await {
                    closed_early.fetch_add(1, Ordering::SeqCst);
                    return;
                }
            }
            Action::Stall(d) => {
                if client_closed_within(&mut socket, d).await {
                    closed_early.fetch_add(1, Ordering::SeqCst);
                }
                return;
            }
            Action::Repeat(bytes) => loop {
                if socket.write_all(&bytes).await.is_err() || socket.flush().await.is_err() {
                    closed_early.fetch_add(1, Ordering::SeqCst);
                    return;
                }
            },
            Action::Reset => {
                // Linger 0 makes the close an RST. With a zero timeout nothing blocks, which is
                // what tokio's deprecation is about.
                #[allow(deprecated)]
                let _ = socket.set_linger(Some(Duration::ZERO));
                return;
            }
        }
    }
    let _ = socket.shutdown().await;
}

/// Waits up to `d`; true if the client closed its side meanwhile.
async fn client_closed_within(socket: &mut TcpStream, d: Duration) -> bool {
    let mut buf = [0u8; 256];
    let deadline = tokio::time::Instant::now() + d;
    loop {
        match tokio::time::timeout_at(deadline, socket.read(&mut buf)).await {
            Err(_) => return false,
            Ok(Ok(0)) | Ok(Err(_)) => return true,
            Ok(Ok(_)) => continue,
        }
    }
}

async fn read_request(socket: &mut TcpStream) -> Option<RecordedRequest> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    let header_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        let n = socket.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..header_end]).into_owned();
    let mut lines = head.split("\r\n");
    let mut first = lines.next()?.split_whitespace();
    let method = first.next()?.to_string();
    let path = first.next()?.to_string();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let length: usize = headers
        .iter()
        .find(|(k, _)| k == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = buf[header_end..].to_vec();
    while body.len() < length {
        let n = socket.read(&mut chunk).await.ok()?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    Some(RecordedRequest {
        method,
        path,
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    })
}
