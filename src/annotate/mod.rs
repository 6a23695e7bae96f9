//! `goldgate annotate`: the local web page that builds and grows the gold suite. Each
//! annotator labels samples independently (their labels are saved as their entry of the
//! sample's `annotations`, every other byte of the file kept), sees agreement with the
//! others live (the kappas of `goldgate suite agreement`), marks samples that need
//! discussion, and a reviewer promotes annotations to the gold `labels`. The page is
//! embedded in the binary; the server binds loopback unless told otherwise, and then
//! requires a random access token.
//!
//! [`workspace`] holds the suite, [`views`] builds what the page reads, [`write`] checks
//! and saves what it sends, [`prefill`] turns a run file into drafts, [`server`] is the
//! HTTP side (serving each kind's form, [`kind_forms`], from the registry of kinds) and
//! [`listen`] serves its connections within [`Limits`].

pub mod kind_forms;
pub mod listen;
pub mod prefill;
pub mod refusal;
pub mod server;
pub mod views;
pub mod workspace;
pub mod write;

use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};

use goldgate_core::error::{Error, Result};
pub use listen::Limits;
pub use workspace::{Options, Workspace};

/// Where the page is served, once the server listens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Listening {
    /// The URL to open (with the access token when bound beyond loopback).
    pub url: String,
    /// Whether the page is reachable from other machines.
    pub shared: bool,
    pub samples: usize,
}

/// Open the suite, listen on `address`, call `ready` with where the page is, and serve
/// within `limits` until Ctrl-C or SIGTERM.
pub fn serve(
    options: Options,
    address: SocketAddr,
    limits: Limits,
    ready: impl FnOnce(&Listening),
) -> Result<()> {
    let workspace = Workspace::open(options)?;
    let samples = workspace.entries.len();
    let runtime = goldgate_client::runtime::build()?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(address).await.map_err(|e| {
            Error::usage(
                format!("cannot listen on {address}: {e}"),
                "another program uses the port: pass another with --port, or --port 0 for any free one",
            )
        })?;
        let bound = listener
            .local_addr()
            .map_err(|e| Error::internal(format!("the listener has no address: {e}")))?;
        let shared = !address.ip().is_loopback();
        let token = shared.then(|| goldgate_core::rng::secret_hex(24));
        let shown = match address.ip() {
            ip if ip.is_unspecified() => this_machine(ip),
            IpAddr::V6(ip) => format!("[{ip}]"),
            IpAddr::V4(ip) => ip.to_string(),
        };
        let port = bound.port();
        let url = match &token {
            Some(token) => format!("http://{shown}:{port}/?token={token}"),
            None => format!("http://{shown}:{port}/"),
        };
        let hosts = [shown.as_str(), "127.0.0.1", "localhost", "[::1]"]
            .iter()
            .map(|h| format!("{h}:{port}"))
            .collect();
        let app = Arc::new(server::App {
            workspace: Mutex::new(workspace),
            token,
            hosts,
            port,
            request_timeout: limits.request_timeout,
            now: || {
                let secs = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_secs());
                goldgate_core::score::rfc3339(secs)
            },
        });
        ready(&Listening {
            url,
            shared,
            samples,
        });
        listen::serve(listener, server::router(app), limits, shutdown()).await;
        Ok(())
    })
}

/// The address other machines reach this one at, for a server listening on every address
/// (`0.0.0.0` or `::`): the one the system would send from (a UDP socket is connected to a
/// documentation address; nothing is sent), else loopback.
fn this_machine(any: IpAddr) -> String {
    let (bind, probe): (SocketAddr, SocketAddr) = match any {
        IpAddr::V4(_) => (([0, 0, 0, 0], 0).into(), ([192, 0, 2, 1], 9).into()),
        IpAddr::V6(_) => (
            (std::net::Ipv6Addr::UNSPECIFIED, 0).into(),
            (
                "2001:db8::1"
                    .parse::<std::net::Ipv6Addr>()
                    .unwrap_or(std::net::Ipv6Addr::LOCALHOST),
                9,
            )
                .into(),
        ),
    };
    let found = std::net::UdpSocket::bind(bind)
        .and_then(|socket| socket.connect(probe).and_then(|()| socket.local_addr()))
        .map(|a| a.ip())
        .ok()
        .filter(|ip| !ip.is_unspecified());
    match found.unwrap_or(match any {
        IpAddr::V4(_) => IpAddr::V4(std::net::Ipv4Addr::LOCALHOST),
        IpAddr::V6(_) => IpAddr::V6(std::net::Ipv6Addr::LOCALHOST),
    }) {
        IpAddr::V6(ip) => format!("[{ip}]"),
        IpAddr::V4(ip) => ip.to_string(),
    }
}

/// Resolves on Ctrl-C or SIGTERM.
async fn shutdown() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term =
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(term) => term,
                Err(_) => {
                    let _ = interrupt.await;
                    return;
                }
            };
        tokio::select! {
            _ = interrupt => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = interrupt.await;
    }
}

#[cfg(test)]
mod kind_tests;
#[cfg(test)]
mod server_tests;
#[cfg(test)]
mod tests;
