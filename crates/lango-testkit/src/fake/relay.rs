//! Serving a fixed port: a byte-for-byte relay to the fake's ephemeral one.

use std::net::SocketAddr;
use std::time::Duration;

use tokio::net::{TcpListener, TcpStream};

/// Accepts connections on `listener` and relays each, byte for byte, to the server on
/// 127.0.0.1:`upstream_port` (how the binary serves a fixed port: [`TestServer`] binds an
/// ephemeral one). A reset from the upstream is passed on as a reset; a client that goes
/// away is passed on as a close, so `closed_early()` still counts it. Runs until the
/// listener fails.
pub async fn relay(listener: TcpListener, upstream_port: u16) {
    loop {
        let Ok((client, _)) = listener.accept().await else {
            break;
        };
        tokio::spawn(relay_one(
            client,
            SocketAddr::from(([127, 0, 0, 1], upstream_port)),
        ));
    }
}

async fn relay_one(mut client: TcpStream, upstream: SocketAddr) {
    let Ok(mut server) = TcpStream::connect(upstream).await else {
        return;
    };
    let _ = client.set_nodelay(true);
    let _ = server.set_nodelay(true);
    if tokio::io::copy_bidirectional(&mut client, &mut server)
        .await
        .is_err()
    {
        // Let what was already relayed reach the client, then reset it like the upstream did.
        tokio::time::sleep(Duration::from_millis(20)).await;
        #[allow(deprecated)]
        let _ = client.set_linger(Some(Duration::ZERO));
    }
}
